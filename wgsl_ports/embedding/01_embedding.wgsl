// 01_embedding.wgsl: embed_lookup, embed_backward, embed_lookup_w16.
// Reconstructed from the llm.istanbul study of 01_embedding.wgsl ("Bind Group ABI", "Line by Line",
// "embed_lookup_w16 Difference"). The seed shows the kernels' bodies; the module-scope helpers
// (WG, flat_id, is_finite) are the engine's shared ones as the optimizer file's study shows them.
//
// Decision: the seed keeps all three entry points in one file, so `enable f16;` (module-wide)
// stands at its top. A browser device without "shader-f16" then fails createShaderModule for the
// whole module, embed_lookup and embed_backward included: that is what the seed's engine ships,
// and we follow it. (Splitting embed_lookup_w16 into its own module would lift that.)
// Each entry point has its own bindings; the _w16 variant carries its own variable names because
// module-scope names are unique in WGSL while several variables may share @group/@binding as
// long as no entry point uses two of them.
enable f16;

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// WGSL has no isFinite: test the exponent bits (R15).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// ---- embed_lookup: out[s, d] = table[tokens[s], d], zero for tokens[s] >= vocab_size ----------
@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> dims: vec4<u32>;  // (seq_len, d_model, vocab_size, _)

@compute @workgroup_size(256, 1, 1)
fn embed_lookup(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let seq_len = dims.x;
    let d_model = dims.y;
    let vocab_size = dims.z;
    let total = seq_len * d_model;
    if (i >= total) { return; }

    let s = i / d_model;
    let d = i % d_model;

    let t = tokens[s];
    if (t >= vocab_size) {
        out[i] = 0.0;
        return;
    }

    out[i] = table[t * d_model + d];
}

// ---- embed_backward: grad_table[tokens[s], d] += grad_out[s, d] by an f32 CAS-add --------------
@group(0) @binding(1) var<storage, read> grad_out: array<f32>;
// f32 data; WGSL has no atomic<f32>, so the bit patterns are CAS-added (seed "CAS-loop f32 atomic add").
@group(0) @binding(2) var<storage, read_write> grad_table: array<atomic<u32>>;

@compute @workgroup_size(256, 1, 1)
fn embed_backward(@builtin(global_invocation_id) gid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let seq_len = dims.x;
    let d_model = dims.y;
    let vocab_size = dims.z;
    let total = seq_len * d_model;
    if (i >= total) { return; }

    let s = i / d_model;
    let d = i % d_model;

    let t = tokens[s];
    if (t >= vocab_size) { return; }

    let val = grad_out[i];
    if (val == 0.0 || !is_finite(val)) { return; }
    let dst_idx = t * d_model + d;

    var old_bits = atomicLoad(&grad_table[dst_idx]);
    loop {
        let new_bits = bitcast<u32>(bitcast<f32>(old_bits) + val);
        let res = atomicCompareExchangeWeak(&grad_table[dst_idx], old_bits, new_bits);
        if (res.exchanged) { break; }
        old_bits = res.old_value;
    }
}

// ---- embed_lookup_w16: embed_lookup with the table in f16 storage, output f32 -----------------
@group(0) @binding(0) var<storage, read> tokens_w16: array<u32>;
@group(0) @binding(1) var<storage, read> table_w16: array<f16>;
@group(0) @binding(2) var<storage, read_write> out_w16: array<f32>;
@group(0) @binding(3) var<uniform> dims_w16: vec4<u32>;  // (seq_len, d_model, vocab_size, _)

@compute @workgroup_size(256, 1, 1)
fn embed_lookup_w16(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let seq_len = dims_w16.x;
    let d_model = dims_w16.y;
    let vocab_size = dims_w16.z;
    let total = seq_len * d_model;
    if (i >= total) { return; }

    let s = i / d_model;
    let d = i % d_model;

    let t = tokens_w16[s];
    if (t >= vocab_size) {
        out_w16[i] = 0.0;
        return;
    }

    out_w16[i] = f32(table_w16[t * d_model + d]);
}
