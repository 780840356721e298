// reject: two @diagnostic attributes for one rule on one function
@diagnostic(off, derivative_uniformity) @diagnostic(off, derivative_uniformity)
@compute @workgroup_size(1) fn main() {
}
