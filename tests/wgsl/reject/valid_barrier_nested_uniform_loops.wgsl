// accept: barriers in nested loops with uniform bounds from a uniform buffer
struct P { n: u32, m: u32 }
@group(0) @binding(0) var<uniform> p: P;
var<workgroup> tile: array<f32, 64>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid: vec3u) {
  var acc = 0.0;
  for (var i = 0u; i < p.n; i++) {
    for (var j = 0u; j < p.m; j++) {
      tile[lid.x] = f32(i + j);
      workgroupBarrier();
      acc += tile[63u - lid.x];
      workgroupBarrier();
    }
  }
  out[lid.x] = acc;
}
