// reject: subgroupAdd without enable subgroups
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main() {
  out[0] = subgroupAdd(1u);
}
