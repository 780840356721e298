// reject: enable of an unknown extension
enable foo;
@compute @workgroup_size(64) fn main() {
}
