// util_f16.wgsl: an f16 probe in its own module, since `enable f16;` is module-wide and would
// make every util kernel need "shader-f16" (R22).
enable f16;

const WG: u32 = 256u;

fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// ---- scale_f16: out[i] = 2 * in[i] in f16 for i < n --------------------------------------------
@group(0) @binding(0) var<storage, read> half_in: array<f16>;
@group(0) @binding(1) var<storage, read_write> half_out: array<f16>;
@group(0) @binding(2) var<uniform> half_params: vec4<u32>;  // (n, _, _, _)

@compute @workgroup_size(256, 1, 1)
fn scale_f16(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= half_params.x) { return; }
    half_out[i] = f16(2.0) * half_in[i];
}
