// reject: const 5 % 0
const x = 5 % 0;
@compute @workgroup_size(64) fn main() {
}
