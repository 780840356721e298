// reject: const 1i << 31u (bits shifted out of an i32)
const x = 1i << 31u;
@compute @workgroup_size(64) fn main() {
}
