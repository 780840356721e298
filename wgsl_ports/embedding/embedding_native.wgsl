// embedding_native.wgsl: NOT FROM THE BROWSER ENGINE. wgslvk's own native kernels beside the
// 01_embedding.wgsl ports (the llm.istanbul study of 01_embedding.wgsl). Written in WGSL so the same ABI
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
//
// embed_backward_rows (issue 15; at the end of this file): embed_backward_deterministic's result
// bit for bit from the same segments, by rows of vec4 with one workgroup per segment (chunk).
//
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
// (embed_lookup_rows and embed_lookup_w16_rows share `tokens` and `dims`: there dims.w is rows_per_wg;
// embed_backward_rows shares all six bindings' numbers, viewing 1 and 2 as vec4<f32>)
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

// ---- embed_backward_rows: embed_backward_deterministic by rows of vec4 (issue 15) ------------
// The same segments (`order`, `seg_start`, dims.w = n_segments: the host's stable sort, built
// once) and the same result bit for bit: every table element starts from its value, adds its
// token's gradients in position order, skipping zero and non-finite ones, and is stored once by
// one writer (no atomics). Only the launch differs from embed_backward_deterministic:
//   - a workgroup of 64 invocations serves 64 / lanes segments (lanes: the smallest power of two
//     >= d_model / 4, at most 64, as the row-wise lookups: one segment per workgroup for
//     d_model >= 256) and one chunk of its row: lanes x 4 vec4 columns, each lane up to 4 of
//     them (stride `lanes`); rows wider than 1024 floats take ceil(d_model / 4 / 256) chunks, one
//     workgroup each (workgroup index = segment group * chunks + chunk);
//   - the segment's bounds and token are read once per workgroup (one address: broadcasts);
//   - gradients and the table move as 16 B vec4<f32>; per position a lane issues its (up to 4)
//     independent loads, two positions per loop iteration (up to 8 loads in flight), and adds
//     them per component in position order (the sequential order cannot be split without
//     changing the f32 rounding: a long segment is d_model / 4 parallel chains of L adds);
//   - more than 65535 workgroups: the 2-D grid, flat workgroup index wid.y * nwg.x + wid.x.
// Load balance: a segment never waits for another (its own workgroups), so one long segment
// (the same token everywhere) costs its own chain, L positions x (latency / loads in flight),
// while all other segments run beside it; no workgroup walks more than one segment.
// A d_model that is not a multiple of 4 writes nothing (the host runs
// embed_backward_deterministic for it).
@group(0) @binding(1) var<storage, read> grad_out4: array<vec4<f32>>;          // [seq_len x d_model / 4]
@group(0) @binding(2) var<storage, read_write> grad_table4: array<vec4<f32>>;  // [vocab_size x d_model / 4]

// acc + v per component where embed_backward_deterministic adds (v != 0 and finite), else acc.
fn add_kept(acc: vec4<f32>, v: vec4<f32>) -> vec4<f32> {
    let finite = (bitcast<vec4<u32>>(v) & vec4<u32>(0x7f800000u)) != vec4<u32>(0x7f800000u);
    let keep = (v != vec4<f32>(0.0)) & finite;
    return select(acc, acc + v, keep);
}

@compute @workgroup_size(64, 1, 1)
fn embed_backward_rows(@builtin(workgroup_id) wid: vec3<u32>,
                       @builtin(local_invocation_index) lid: u32,
                       @builtin(num_workgroups) nwg: vec3<u32>) {
    if ((dims.y & 3u) != 0u) { return; }
    let d4 = dims.y / 4u;
    let vocab_size = dims.z;
    let n_segments = dims.w;
    var lanes = 1u;
    while (lanes < d4 && lanes < ROWS_WG) { lanes = lanes * 2u; }
    let chunk = lanes * 4u;
    let chunks = (d4 + chunk - 1u) / chunk;
    let w = wid.y * nwg.x + wid.x;
    let g = (w / chunks) * (ROWS_WG / lanes) + lid / lanes;
    if (g >= n_segments) { return; }
    let c0 = (w % chunks) * chunk + lid % lanes;
    let c1 = c0 + lanes;
    let c2 = c1 + lanes;
    let c3 = c2 + lanes;

    let begin = seg_start[g];
    let end = seg_start[g + 1u];
    let t = tokens[order[begin]];
    if (t >= vocab_size) { return; }  // the host leaves such positions out; defensive only
    if (c0 >= d4) { return; }
    let dst = t * d4;

    var a0 = grad_table4[dst + c0];
    var a1 = vec4<f32>(0.0);
    var a2 = vec4<f32>(0.0);
    var a3 = vec4<f32>(0.0);
    if (c1 < d4) { a1 = grad_table4[dst + c1]; }
    if (c2 < d4) { a2 = grad_table4[dst + c2]; }
    if (c3 < d4) { a3 = grad_table4[dst + c3]; }
    var k = begin;
    for (; k + 1u < end; k = k + 2u) {
        let p = order[k] * d4;
        let q = order[k + 1u] * d4;
        let u0 = grad_out4[p + c0];
        let v0 = grad_out4[q + c0];
        var u1 = vec4<f32>(0.0);
        var v1 = vec4<f32>(0.0);
        var u2 = vec4<f32>(0.0);
        var v2 = vec4<f32>(0.0);
        var u3 = vec4<f32>(0.0);
        var v3 = vec4<f32>(0.0);
        if (c1 < d4) { u1 = grad_out4[p + c1]; v1 = grad_out4[q + c1]; }
        if (c2 < d4) { u2 = grad_out4[p + c2]; v2 = grad_out4[q + c2]; }
        if (c3 < d4) { u3 = grad_out4[p + c3]; v3 = grad_out4[q + c3]; }
        a0 = add_kept(add_kept(a0, u0), v0);
        a1 = add_kept(add_kept(a1, u1), v1);
        a2 = add_kept(add_kept(a2, u2), v2);
        a3 = add_kept(add_kept(a3, u3), v3);
    }
    if (k < end) {
        let p = order[k] * d4;
        a0 = add_kept(a0, grad_out4[p + c0]);
        if (c1 < d4) { a1 = add_kept(a1, grad_out4[p + c1]); }
        if (c2 < d4) { a2 = add_kept(a2, grad_out4[p + c2]); }
        if (c3 < d4) { a3 = add_kept(a3, grad_out4[p + c3]); }
    }
    grad_table4[dst + c0] = a0;
    if (c1 < d4) { grad_table4[dst + c1] = a1; }
    if (c2 < d4) { grad_table4[dst + c2] = a2; }
    if (c3 < d4) { grad_table4[dst + c3] = a3; }
}
