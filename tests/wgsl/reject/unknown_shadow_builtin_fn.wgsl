// accept: a local named like a builtin function
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let min = 1u;
  out[0] = min;
}
