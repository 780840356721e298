// reject: subgroupShuffleDown with a non-uniform delta
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = subgroupShuffleDown(lid.x, lid.x & 3u);
}
