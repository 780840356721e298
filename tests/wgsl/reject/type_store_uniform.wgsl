// reject: a store to a uniform buffer
struct P { x: u32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(64) fn main() {
  p.x = 1u;
}
