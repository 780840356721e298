// accept: dot4I8Packed and pack4xU8
@group(0) @binding(0) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(64) fn main() {
  out[0] = dot4I8Packed(0x01020304u, pack4xU8(vec4u(1u, 2u, 3u, 4u)));
}
