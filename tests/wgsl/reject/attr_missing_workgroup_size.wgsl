// reject: @compute without @workgroup_size
@compute fn main() {
}
