// accept: requires of a shipped language feature
requires pointer_composite_access;
@compute @workgroup_size(64) fn main() {
}
