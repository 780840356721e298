// reject: @workgroup_size(8u, 8i)
@compute @workgroup_size(8u, 8i) fn main() {
}
