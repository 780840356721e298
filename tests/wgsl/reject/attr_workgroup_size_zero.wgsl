// reject: @workgroup_size(0)
@compute @workgroup_size(0) fn main() {
}
