// reject: workgroupBarrier in a while loop on a read_write storage value
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  while (buf[0] > 0u) {
    workgroupBarrier();
    buf[0] = buf[0] - 1u;
  }
}
