// accept: an else-if chain without parentheses
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var r = 0u;
  if lid.x == 0u {
    r = 1u;
  } else if lid.x == 1u {
    r = 2u;
  } else {
    r = 3u;
  }
  out[lid.x] = r;
}
