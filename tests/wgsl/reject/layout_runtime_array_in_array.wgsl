// reject: an array of runtime-sized arrays
@group(0) @binding(0) var<storage, read_write> s: array<array<u32>, 4>;
@compute @workgroup_size(64) fn main() {
}
