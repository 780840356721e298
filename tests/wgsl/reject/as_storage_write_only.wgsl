// reject: var<storage, write> (write is not an access mode of storage)
@group(0) @binding(0) var<storage, write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
