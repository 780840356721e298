// reject: @group(4): above maxBindGroups (pipeline layout)
@group(4) @binding(0) var<storage, read_write> buf: array<u32>;
@compute @workgroup_size(64) fn main() {
  buf[0] = 1u;
}
