// reject: const -2147483648i / -1i
const x = -2147483648i / -1i;
@compute @workgroup_size(64) fn main() {
}
