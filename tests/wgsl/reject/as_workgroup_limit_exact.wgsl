// accept: 16 KiB of workgroup memory (exactly the default limit)
var<workgroup> w: array<f32, 4096>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  w[lid.x] = 1.0;
}
