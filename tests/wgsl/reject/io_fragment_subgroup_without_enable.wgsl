// reject: @builtin(subgroup_size) needs 'enable subgroups;'
@fragment fn main(@builtin(subgroup_size) n : u32) -> @location(0) vec4<f32> {
  return vec4<f32>(f32(n));
}
