// accept: const 2147483647i + 1i (concrete integer arithmetic wraps, even in const-expressions)
const x = 2147483647i + 1i;
@compute @workgroup_size(64) fn main() {
}
