// reject: dpdx in a helper under a branch on a private variable (derivative_uniformity)
var<private> pv: f32;
fn helper() -> f32 {
  if (pv > 0.0) {
    return dpdx(pv);
  }
  return 0.0;
}
@compute @workgroup_size(64) fn main() {
}
