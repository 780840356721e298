// accept: a branch on subgroupAdd's result (uniform at subgroup scope) around subgroupMax
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  let s = subgroupAdd(1u);
  if (s > 4u) {
    out[0] = subgroupMax(s);
  }
}
