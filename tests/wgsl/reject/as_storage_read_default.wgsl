// accept: var<storage> defaults to read access and is only read
@group(0) @binding(0) var<storage> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  dst[lid.x] = src[lid.x];
}
