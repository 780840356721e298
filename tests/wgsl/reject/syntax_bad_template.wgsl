// reject: an unclosed template list
@compute @workgroup_size(64) fn main() {
  var v: vec4<f32;
}
