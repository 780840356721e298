// accept: a local named like a predeclared type (f32)
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let f32 = 2u;
  out[0] = f32;
}
