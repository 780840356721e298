// accept: f16 vectors with enable f16
enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<vec4h>;
@compute @workgroup_size(64) fn main() {
  let v = vec4h(1.0h, 2.0h, 3.0h, 4.0h);
  out[0] = v * v + vec4h(0.5h);
}
