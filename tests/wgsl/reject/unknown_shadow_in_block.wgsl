// accept: a local shadowing another in a nested block
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let a = 1u;
  {
    let a = 2u;
    out[0] = a;
  }
  out[1] = a;
}
