// reject: @builtin(position) in a compute entry point
@compute @workgroup_size(64) fn main(@builtin(position) p: vec4f) {
}
