// accept: i32(3e9) in a const-expression (float to integer conversion saturates)
const x: i32 = i32(3e9);
@compute @workgroup_size(64) fn main() {
}
