// reject: an enable after a declaration
const x = 1;
enable f16;
@compute @workgroup_size(64) fn main() {
}
