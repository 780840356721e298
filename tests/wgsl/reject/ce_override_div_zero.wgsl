// reject: an override-expression dividing by an override that is 0 (pipeline creation)
override d: u32 = 0u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  out[0] = 10u / d;
}
