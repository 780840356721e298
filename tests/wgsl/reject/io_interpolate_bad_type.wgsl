// reject: centroid is a sampling, not an interpolation type
@fragment fn main(@location(0) @interpolate(centroid) v : f32) -> @location(0) vec4<f32> {
  return vec4<f32>(v);
}
