enable f16;

struct Input {
  @size(16) param0 : vec3<f16>,
}

struct Output {
  @size(8) value : vec3<f16>
};
@group(0) @binding(0) var<storage, read_write> outputs : array<Output, 128>;

@group(0) @binding(1) var<uniform> inputs : array<Input, 128>;

@compute @workgroup_size(1)
fn main() {
  for (var i = 0; i < 128; i++) {
    outputs[i].value = -(inputs[i].param0);
  }
}
