// reject: an atomic in the private address space
var<private> a: atomic<u32>;
@compute @workgroup_size(64) fn main() {
  atomicStore(&a, 1u);
}
