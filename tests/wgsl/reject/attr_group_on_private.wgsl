// reject: @group/@binding on a private variable
@group(0) @binding(0) var<private> x: u32;
@compute @workgroup_size(64) fn main() {
  x = 1u;
}
