// accept: @builtin(sample_mask) once as input and once as output
@fragment fn main(@builtin(sample_mask) m : u32) -> @builtin(sample_mask) u32 {
  return m;
}
