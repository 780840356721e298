// reject: @builtin(local_invocation_id) of type u32
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: u32) {
}
