// accept: dpdx in non-uniform control flow with @diagnostic(off, derivative_uniformity) on the function
var<private> pv: f32;
@diagnostic(off, derivative_uniformity)
fn helper() -> f32 {
  if (pv > 0.0) {
    return dpdx(pv);
  }
  return 0.0;
}
@compute @workgroup_size(64) fn main() {
}
