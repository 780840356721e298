// reject: const sqrt(-1.0)
const x = sqrt(-1.0);
@compute @workgroup_size(64) fn main() {
}
