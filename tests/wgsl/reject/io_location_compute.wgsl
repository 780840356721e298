// reject: a compute shader has no user-defined inputs
struct S {
  @location(0) v : f32,
};
@compute @workgroup_size(1) fn main(s : S) {
}
