// reject: a compute entry point parameter without a builtin
@compute @workgroup_size(1) fn main(x: u32) {
}
