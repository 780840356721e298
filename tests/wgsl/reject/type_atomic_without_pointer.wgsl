// reject: atomicLoad given the atomic, not a pointer
var<workgroup> a: atomic<u32>;
@compute @workgroup_size(64) fn main() {
  let v = atomicLoad(a);
}
