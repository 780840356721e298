// reject: 'warn' is not a diagnostic severity (error, warning, info, off)
diagnostic(warn, derivative_uniformity);
@compute @workgroup_size(1) fn main() {
}
