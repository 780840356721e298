// reject: a storage buffer without @group/@binding
var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
