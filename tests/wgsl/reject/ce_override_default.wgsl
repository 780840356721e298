// accept: an override with a default, used in an expression
override scale: f32 = 2.0;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = f32(lid.x) * scale;
}
