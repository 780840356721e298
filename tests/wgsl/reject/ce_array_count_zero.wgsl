// reject: array<u32, 0>
var<private> a: array<u32, 0>;
@compute @workgroup_size(64) fn main() {
}
