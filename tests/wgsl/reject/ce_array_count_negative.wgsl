// reject: array<u32, -1>
var<private> a: array<u32, -1>;
@compute @workgroup_size(64) fn main() {
}
