// reject: a function with a barrier on the right of || after a non-uniform left side
fn sync() -> bool {
  workgroupBarrier();
  return true;
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  let b = lid.x == 0u || sync();
  out[lid.x] = select(0u, 1u, b);
}
