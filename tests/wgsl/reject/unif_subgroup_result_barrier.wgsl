// reject: a barrier under a branch on subgroupAdd's result (not workgroup-uniform)
enable subgroups;
@compute @workgroup_size(64) fn main() {
  let s = subgroupAdd(1u);
  if (s > 4u) {
    workgroupBarrier();
  }
}
