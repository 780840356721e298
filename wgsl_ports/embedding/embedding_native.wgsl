// embedding_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own native kernel beside the
// 01_embedding.wgsl ports (shared/seeds/001_dd8b91b13902cd4b.txt, "Line by Line — embed_backward":
// its CAS order is nondeterministic, so the f32 sums differ from run to run). Written in WGSL so
// the same ABI check covers its GLSL port; it is plain WGSL that Tint accepts, without `enable`.
//
// embed_backward_deterministic: the same result as embed_backward up to the order of the f32 adds,
// which is fixed here: position order. The host stably sorts the in-vocabulary positions by token
// id (`order`) and cuts them into one segment per distinct token (`seg_start`, n_segments + 1
// offsets into `order`). One thread per (segment, d) starts from the table's current value, adds
// that token's grad_out values in position order (skipping zero and non-finite ones, as
// embed_backward does) and stores once: no atomics, every element has exactly one writer. The
// result equals a sequential f32 sum in position order bit for bit, on every run.

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// WGSL has no isFinite: test the exponent bits (R15).
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@group(0) @binding(0) var<storage, read> tokens: array<u32>;
@group(0) @binding(1) var<storage, read> grad_out: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad_table: array<f32>;
@group(0) @binding(3) var<uniform> dims: vec4<u32>;  // (seq_len, d_model, vocab_size, n_segments)
@group(0) @binding(4) var<storage, read> order: array<u32>;      // positions, stably sorted by token
@group(0) @binding(5) var<storage, read> seg_start: array<u32>;  // n_segments + 1 offsets into order

@compute @workgroup_size(256, 1, 1)
fn embed_backward_deterministic(@builtin(global_invocation_id) gid: vec3<u32>,
                                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let d_model = dims.y;
    let vocab_size = dims.z;
    let n_segments = dims.w;
    let total = n_segments * d_model;
    if (i >= total) { return; }

    let g = i / d_model;
    let d = i % d_model;

    let begin = seg_start[g];
    let end = seg_start[g + 1u];
    let t = tokens[order[begin]];
    if (t >= vocab_size) { return; }  // the host leaves such positions out; defensive only
    let dst_idx = t * d_model + d;

    var acc = grad_table[dst_idx];
    for (var k = begin; k < end; k = k + 1u) {
        let val = grad_out[order[k] * d_model + d];
        if (val == 0.0 || !is_finite(val)) { continue; }
        acc = acc + val;
    }
    grad_table[dst_idx] = acc;
}
