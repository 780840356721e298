// accept: nested block comments
/* outer /* inner */ still a comment */
@compute @workgroup_size(64) fn main() {
}
