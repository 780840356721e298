// accept: a runtime division by a let holding 0 (not a const-expression)
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let zero = 0u;
  out[lid.x] = lid.x / zero;
}
