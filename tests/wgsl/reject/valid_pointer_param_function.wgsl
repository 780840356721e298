// accept: a function-space pointer parameter written by the callee
fn swap(a: ptr<function, u32>, b: ptr<function, u32>) {
  let t = *a;
  *a = *b;
  *b = t;
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  var x = 1u;
  var y = 2u;
  swap(&x, &y);
  out[0] = x;
}
