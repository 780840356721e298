// accept: the same diagnostic directive twice
diagnostic(off, derivative_uniformity);
diagnostic(off, derivative_uniformity);
@compute @workgroup_size(1) fn main() {
}
