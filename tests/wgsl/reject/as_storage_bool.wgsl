// reject: a bool in a storage buffer (not host-shareable)
@group(0) @binding(0) var<storage, read_write> b: bool;
@compute @workgroup_size(64) fn main() {
  b = true;
}
