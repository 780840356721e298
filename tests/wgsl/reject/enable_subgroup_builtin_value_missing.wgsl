// reject: @builtin(subgroup_invocation_id) without enable subgroups
@compute @workgroup_size(64) fn main(@builtin(subgroup_invocation_id) sid: u32) {
}
