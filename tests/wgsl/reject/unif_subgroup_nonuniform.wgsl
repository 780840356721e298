// reject: subgroupAdd under a branch on local_invocation_id (subgroup_uniformity)
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
}
