// Seed: a workgroup reduction with workgroup memory, barriers, a loop with continuing, a switch.
@group(0) @binding(0) var<storage, read> input : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> output : array<f32>;

override WG_SIZE : u32 = 64u;
var<workgroup> partial : array<f32, 64>;

@compute @workgroup_size(64, 1, 1)
fn reduce_sum(@builtin(local_invocation_index) li : u32,
              @builtin(workgroup_id) wid : vec3<u32>) {
  let v = input[wid.x * 64u + li];
  partial[li] = v.x + v.y + v.z + v.w;
  workgroupBarrier();
  var s = 32u;
  loop {
    if (s == 0u) {
      break;
    }
    if (li < s) {
      partial[li] += partial[li + s];
    }
    workgroupBarrier();
    continuing {
      s = s >> 1u;
    }
  }
  if (li == 0u) {
    var out = partial[0];
    switch (wid.x % 3u) {
      case 0u: {
        out = out * 1.0;
      }
      case 1u, 2u: {
        out += 0.0;
      }
      default: {
      }
    }
    output[wid.x] = out;
  }
}
