// accept: const_assert 2 > 1
const_assert 2 > 1;
@compute @workgroup_size(64) fn main() {
}
