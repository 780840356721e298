// accept: an abstract int initializing an f32
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main() {
  let x: f32 = 1;
  out[0] = x;
}
