// accept: a name starting with one underscore
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let _a = 1u;
  out[0] = _a;
}
