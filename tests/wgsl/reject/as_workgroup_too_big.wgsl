// reject: 32 KiB of workgroup memory (above maxComputeWorkgroupStorageSize, pipeline creation)
var<workgroup> w: array<f32, 8192>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  w[lid.x] = 1.0;
}
