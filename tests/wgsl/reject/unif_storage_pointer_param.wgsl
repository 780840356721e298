// reject: a read through a read_write storage pointer parameter decides a barrier
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn first(p: ptr<storage, array<u32>, read_write>) -> u32 {
  return p[0];
}
@compute @workgroup_size(64) fn main() {
  if (first(&buf) == 0u) {
    workgroupBarrier();
  }
}
