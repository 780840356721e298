// accept: workgroupBarrier under a branch on a read-only storage value
@group(0) @binding(0) var<storage, read> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  if (buf[0] > 4u) {
    workgroupBarrier();
  }
}
