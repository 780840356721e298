// reject: const_assert 1 > 2
const_assert 1 > 2;
@compute @workgroup_size(64) fn main() {
}
