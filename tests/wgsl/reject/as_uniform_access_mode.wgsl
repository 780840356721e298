// reject: an access mode on a uniform buffer
struct P { x: u32 }
@group(0) @binding(0) var<uniform, read> p: P;
@compute @workgroup_size(64) fn main() {
  _ = p.x;
}
