// accept: const 0u - 1u (concrete integer arithmetic wraps)
const x = 0u - 1u;
@compute @workgroup_size(64) fn main() {
}
