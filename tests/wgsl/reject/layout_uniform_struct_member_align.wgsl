// accept: a struct member of align 4 after a u32 in a uniform buffer (legal with uniform_buffer_standard_layout)
struct Inner { x: f32 }
struct P {
  a: u32,
  i: Inner,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main() {
  out[0] = p.i.x;
}
