// Seed: f16 storage with an enable directive, vector types, a const-expression, const_assert.
enable f16;

const SCALE : f32 = 1.0 / 1024.0;
const_assert SCALE > 0.0;

@group(0) @binding(0) var<storage, read> a : array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> b : array<vec4<f32>>;

@compute @workgroup_size(8, 8)
fn widen(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 8u;
  if (i >= arrayLength(&a)) {
    return;
  }
  let h = a[i];
  b[i] = vec4<f32>(h) * SCALE + vec4<f32>(f32(h.x), 0.0, 0.0, 0.0);
}
