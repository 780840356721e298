// reject: const 1u << 32u
const x = 1u << 32u;
@compute @workgroup_size(64) fn main() {
}
