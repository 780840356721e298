// reject: workgroupUniformLoad of a pointer indexed by local_invocation_id
var<workgroup> arr: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = workgroupUniformLoad(&arr[lid.x]);
}
