// reject: an integer literal beyond 64 bits
const x = 0x1ffffffffffffffff;
@compute @workgroup_size(64) fn main() {
}
