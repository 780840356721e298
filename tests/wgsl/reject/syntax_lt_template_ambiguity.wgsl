// accept: a < b comparisons next to template lists
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let a = lid.x;
  let b = 3u;
  let c = array<u32, 2>(a, b);
  out[0] = select(0u, 1u, (a < b) && (c[0] > b));
}
