// reject: an unknown attribute
@compute @workgroup_size(1) @fast fn main() {
}
