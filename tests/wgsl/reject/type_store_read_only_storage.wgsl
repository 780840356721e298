// reject: a store to a read-only storage buffer
@group(0) @binding(0) var<storage, read> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
