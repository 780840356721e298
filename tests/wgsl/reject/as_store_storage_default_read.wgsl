// reject: a store through var<storage> (read by default)
@group(0) @binding(0) var<storage> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
