// reject: @binding(1000000): above maxBindingsPerBindGroup (pipeline layout)
@group(0) @binding(1000000) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
