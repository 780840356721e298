// accept: a while loop with a break
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var i = lid.x;
  while (i < 100u) {
    if (i % 7u == 3u) {
      break;
    }
    i += 1u;
  }
  out[lid.x] = i;
}
