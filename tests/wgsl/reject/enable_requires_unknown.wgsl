// reject: requires of an unknown language feature
requires foo;
@compute @workgroup_size(64) fn main() {
}
