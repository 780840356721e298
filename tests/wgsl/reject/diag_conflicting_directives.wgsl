// reject: two diagnostic directives give one rule different severities
diagnostic(off, derivative_uniformity);
diagnostic(error, derivative_uniformity);
@compute @workgroup_size(1) fn main() {
}
