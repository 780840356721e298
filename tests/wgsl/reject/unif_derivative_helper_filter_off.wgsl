// accept: dpdx in non-uniform control flow with diagnostic(off, derivative_uniformity)
diagnostic(off, derivative_uniformity);
var<private> pv: f32;
fn helper() -> f32 {
  if (pv > 0.0) {
    return dpdx(pv);
  }
  return 0.0;
}
@compute @workgroup_size(64) fn main() {
}
