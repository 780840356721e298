// accept: IO attributes in structures that are not entry point IO
struct Inner {
  @builtin(frag_depth) value : f32,
};
struct Outer {
  inner : Inner,
};
fn f(o : Outer) -> f32 {
  return o.inner.value;
}
@compute @workgroup_size(1) fn main() {
  _ = f(Outer());
}
