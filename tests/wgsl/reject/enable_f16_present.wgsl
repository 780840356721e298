// accept: f16 with enable f16
enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<f16>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  out[lid.x] = f16(lid.x) * 0.5h;
}
