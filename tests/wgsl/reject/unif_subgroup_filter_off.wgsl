// accept: subgroupAdd in non-uniform control flow with diagnostic(off, subgroup_uniformity)
enable subgroups;
diagnostic(off, subgroup_uniformity);
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  if (lid.x == 0u) {
    out[0] = subgroupAdd(1u);
  }
}
