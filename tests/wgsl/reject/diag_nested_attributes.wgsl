// accept: @diagnostic for one rule on a function and on a compound statement inside it
@diagnostic(off, derivative_uniformity)
@compute @workgroup_size(1) fn main() {
  @diagnostic(error, derivative_uniformity) {
  }
}
