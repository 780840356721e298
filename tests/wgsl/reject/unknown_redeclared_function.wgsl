// reject: two functions with the same name
fn f() {
}
fn f() {
}
@compute @workgroup_size(64) fn main() {
}
