// reject: a read_write pointer to a read-only storage buffer
@group(0) @binding(0) var<storage, read> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  let p: ptr<storage, u32, read_write> = &buf[0];
}
