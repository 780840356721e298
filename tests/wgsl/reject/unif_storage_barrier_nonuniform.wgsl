// reject: storageBarrier under a branch on local_invocation_index
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32) {
  if (li < 32u) {
    storageBarrier();
  }
}
