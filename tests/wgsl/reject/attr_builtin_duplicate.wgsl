// reject: the same builtin on two parameters
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) a: u32, @builtin(local_invocation_index) b: u32) {
}
