// embedding_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own native kernels beside the
// 01_embedding.wgsl ports (shared/seeds/001_dd8b91b13902cd4b.txt). Written in WGSL so the same ABI
// check covers their GLSL ports; plain WGSL that Tint accepts, without `enable` (so none of them
// needs "shader-f16": the f16 table is read as packed u32 pairs through unpack2x16float).
//
// embed_backward_deterministic ("Line by Line — embed_backward": the seed's CAS order is
// nondeterministic, so the f32 sums differ from run to run): the same result as embed_backward up
// to the order of the f32 adds,
// which is fixed here: position order. The host stably sorts the in-vocabulary positions by token
// id (`order`) and cuts them into one segment per distinct token (`seg_start`, n_segments + 1
// offsets into `order`). One thread per (segment, d) starts from the table's current value, adds
// that token's grad_out values in position order (skipping zero and non-finite ones, as
// embed_backward does) and stores once: no atomics, every element has exactly one writer. The
// result equals a sequential f32 sum in position order bit for bit, on every run.
//
// embed_lookup_rows / embed_lookup_w16_rows (issue 15: the ports run at 39-58% of the copy
// roofline on an H200, one thread per output element, each waiting on its own dependent token
// load): the same outputs as embed_lookup / embed_lookup_w16 bit for bit (a copy, an exact
// f16 -> f32 widening, or +0.0 for an out-of-vocabulary id), organised by rows:
//   - a workgroup of 64 invocations covers `rows_per_wg` = dims.w consecutive output rows
//     (the host picks a power of two: 64 / rows_per_wg lanes per row, the smallest power of two
//     >= d_model / 4, at most 64, so small d_model does not leave lanes idle; every GPT shape has
//     one row per workgroup);
//   - each row's token is read once per row by its lanes (one address: one broadcast load);
//   - table and output move as 16 B vec4<f32> (the f16 table as vec2<u32>, 8 B = 4 halves), so
//     d_model must be a multiple of 4 (the host runs the port otherwise);
//   - each lane issues up to 4 independent loads before its 4 stores (memory-level parallelism);
//   - rows beyond 65535 workgroups: a 2-D grid of workgroups, flat workgroup index
//     wid.y * nwg.x + wid.x (R12); surplus workgroups and lanes exit on the row bound.
// Decisions where WGSL and the host are silent: dims.w is clamped to [1, 64], and lanes whose
// row slot is >= rows_per_wg (rows_per_wg not a power of two) exit, so any dims.w gives the
// port's result (tested by a golden with dims.w = 3). A d_model that is not a multiple of 4 (the
// host never sends one) writes nothing: every invocation returns before any load or store (golden
// `unaligned_writes_nothing`), rather than copying misaligned rows.

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
// (embed_lookup_rows and embed_lookup_w16_rows share `tokens` and `dims`: there dims.w is rows_per_wg)
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

// ---- embed_lookup_rows: embed_lookup by rows of vec4<f32> ------------------------------------
const ROWS_WG: u32 = 64u;

@group(0) @binding(1) var<storage, read> table: array<vec4<f32>>;     // [vocab_size x d_model / 4]
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>; // [seq_len x d_model / 4]

@compute @workgroup_size(64, 1, 1)
fn embed_lookup_rows(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32,
                     @builtin(num_workgroups) nwg: vec3<u32>) {
    if ((dims.y & 3u) != 0u) { return; }
    let seq_len = dims.x;
    let d4 = dims.y / 4u;
    let vocab_size = dims.z;
    let rows_per_wg = clamp(dims.w, 1u, ROWS_WG);
    let lanes = ROWS_WG / rows_per_wg;
    let slot = lid / lanes;
    if (slot >= rows_per_wg) { return; }
    let row = (wid.y * nwg.x + wid.x) * rows_per_wg + slot;
    if (row >= seq_len) { return; }
    let lane = lid % lanes;

    let t = tokens[row];
    let dst = row * d4;
    if (t >= vocab_size) {
        for (var c = lane; c < d4; c = c + lanes) {
            out[dst + c] = vec4<f32>(0.0);
        }
        return;
    }
    let src = t * d4;
    for (var c0 = lane; c0 < d4; c0 = c0 + 4u * lanes) {
        let c1 = c0 + lanes;
        let c2 = c1 + lanes;
        let c3 = c2 + lanes;
        let v0 = table[src + c0];
        var v1 = vec4<f32>(0.0);
        var v2 = vec4<f32>(0.0);
        var v3 = vec4<f32>(0.0);
        if (c1 < d4) { v1 = table[src + c1]; }
        if (c2 < d4) { v2 = table[src + c2]; }
        if (c3 < d4) { v3 = table[src + c3]; }
        out[dst + c0] = v0;
        if (c1 < d4) { out[dst + c1] = v1; }
        if (c2 < d4) { out[dst + c2] = v2; }
        if (c3 < d4) { out[dst + c3] = v3; }
    }
}

// ---- embed_lookup_w16_rows: embed_lookup_w16 by rows, the f16 table as packed u32 pairs -------
// table_w16 holds the f16 table's bytes (vocab_size x d_model halves, little-endian): element
// 2k is the low half of word k. One vec2<u32> is 4 halves, widened exactly by unpack2x16float.
@group(0) @binding(1) var<storage, read> table_w16: array<vec2<u32>>;     // [vocab_size x d_model / 4]
@group(0) @binding(2) var<storage, read_write> out_w16: array<vec4<f32>>; // [seq_len x d_model / 4]

fn widen4(p: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(p.x), unpack2x16float(p.y));
}

@compute @workgroup_size(64, 1, 1)
fn embed_lookup_w16_rows(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(local_invocation_index) lid: u32,
                         @builtin(num_workgroups) nwg: vec3<u32>) {
    if ((dims.y & 3u) != 0u) { return; }
    let seq_len = dims.x;
    let d4 = dims.y / 4u;
    let vocab_size = dims.z;
    let rows_per_wg = clamp(dims.w, 1u, ROWS_WG);
    let lanes = ROWS_WG / rows_per_wg;
    let slot = lid / lanes;
    if (slot >= rows_per_wg) { return; }
    let row = (wid.y * nwg.x + wid.x) * rows_per_wg + slot;
    if (row >= seq_len) { return; }
    let lane = lid % lanes;

    let t = tokens[row];
    let dst = row * d4;
    if (t >= vocab_size) {
        for (var c = lane; c < d4; c = c + lanes) {
            out_w16[dst + c] = vec4<f32>(0.0);
        }
        return;
    }
    let src = t * d4;
    for (var c0 = lane; c0 < d4; c0 = c0 + 4u * lanes) {
        let c1 = c0 + lanes;
        let c2 = c1 + lanes;
        let c3 = c2 + lanes;
        let p0 = table_w16[src + c0];
        var p1 = vec2<u32>(0u);
        var p2 = vec2<u32>(0u);
        var p3 = vec2<u32>(0u);
        if (c1 < d4) { p1 = table_w16[src + c1]; }
        if (c2 < d4) { p2 = table_w16[src + c2]; }
        if (c3 < d4) { p3 = table_w16[src + c3]; }
        out_w16[dst + c0] = widen4(p0);
        if (c1 < d4) { out_w16[dst + c1] = widen4(p1); }
        if (c2 < d4) { out_w16[dst + c2] = widen4(p2); }
        if (c3 < d4) { out_w16[dst + c3] = widen4(p3); }
    }
}
