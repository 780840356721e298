// reject: var<function> at module scope
var<function> x: u32;
@compute @workgroup_size(64) fn main() {
}
