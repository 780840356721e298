// reject: the result of an atomic decides a barrier
var<workgroup> counter: atomic<u32>;
@compute @workgroup_size(64) fn main() {
  let v = atomicAdd(&counter, 1u);
  if (v == 0u) {
    workgroupBarrier();
  }
}
