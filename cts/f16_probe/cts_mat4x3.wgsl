enable f16;

struct Input {
  @size(32) param0 : mat4x3<f16>,
}

struct Output {
  @size(32) value : mat4x3<f16>
};
@group(0) @binding(0) var<storage, read_write> outputs : array<Output, 64>;

@group(0) @binding(1) var<uniform> inputs : array<Input, 64>;

@compute @workgroup_size(1)
fn main() {
  for (var i = 0; i < 64; i++) {
    outputs[i].value = mat4x3<f16>(inputs[i].param0);
  }
}
