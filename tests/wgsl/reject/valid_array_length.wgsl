// accept: arrayLength of a runtime-sized array
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x < arrayLength(&data)) {
    data[gid.x] = gid.x;
  }
}
