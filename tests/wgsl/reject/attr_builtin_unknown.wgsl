// reject: an unknown builtin name
@compute @workgroup_size(64) fn main(@builtin(thread_id) t: u32) {
}
