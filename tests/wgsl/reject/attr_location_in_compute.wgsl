// reject: @location on a compute entry point parameter
@compute @workgroup_size(64) fn main(@location(0) x: f32) {
}
