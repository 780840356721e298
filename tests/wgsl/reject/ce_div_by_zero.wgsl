// reject: const 1 / 0
const x = 1 / 0;
@compute @workgroup_size(64) fn main() {
}
