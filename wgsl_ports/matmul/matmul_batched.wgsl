// matmul_batched.wgsl: wgslvk's own kernel, not from the browser engine (ours; issue 23). Many
// small fp32 products in one dispatch, each inside wider matrices: the fp32 trainer's attention
// with the score matrix materialized (apps/gpt/gpu_model.cpp), one product per (batch, head)
// reading the heads' columns of qkv / dy in place, as sgmm_f16_batched does for the mixed step.
//
// Product z (workgroup z) = o * H + i (H = ld.w) computes C_z (+)= op(A_z) op(B_z), where A_z's
// stored matrix starts at element off.x + o * ab.x + i * ab.y of binding 0 and its rows are ld.x
// elements apart (likewise B_z: off.y, ab.z, ab.w, ld.y; C_z: off.z, cb.x, cb.y, ld.z). M, N, K
// and the flags (mnkf) are the matmul family's: TRANS_A (A_z stored [K][M]), TRANS_B (B_z stored
// [N][K]), ACCUMULATE (C = old C + result). Three causal flags skip work whose terms are exact
// zeros of a causal (lower-triangular, [T][T]) operand, which leaves every computed element's
// bits as the full product's (fma(0, b, acc) == acc for finite b):
//   CAUSAL_TILES (16):  output tiles whose first column is past their last row (j > i for all of
//                       them) are not computed and not written (S = Q K^T, dP = dO V^T: the
//                       softmax and dS passes never read above the diagonal).
//   K_FROM_ROW (32):    the sum over k starts at the tile's first row (op(A)[m][k] = 0 for k < m:
//                       dV = P^T dO, dK = dS^T Q).
//   K_TO_ROW (64):      the sum over k ends after the tile's last row (op(A)[m][k] = 0 for k > m:
//                       O = P V, dQ = dS K).
//
// Blocking: a 64 x 64 output tile per workgroup of 256 invocations, each owning 4 x 4 outputs
// (rows ty*4.., columns tx*4.. for ty = lid / 16, tx = lid % 16), K in stages of 16 with two
// stages of workgroup memory (2 x (16 x 64 A + 16 x 64 B) f32 = 16 KB: WebGPU's default limit),
// one vec4 of A and one of B per invocation and stage, one barrier per stage. Each element of C
// is one fma chain over k in ascending order, as matmul_native's: the same bits as matmul_native
// on each product alone wherever the device contracts both alike.
// Grid: x (and y above 65535, flat_wg) = ceil(M / 64) * ceil(N / 64) tiles, z = the products.
// Shapes it takes: M, N, K, the three row lengths, the offsets and the four A/B strides
// multiples of 4 (whole vec4 loads); otherwise it writes nothing (the host checks first).

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ACCUMULATE: u32 = 8u;
const CAUSAL_TILES: u32 = 16u;
const K_FROM_ROW: u32 = 32u;
const K_TO_ROW: u32 = 64u;

struct BmmDims {
    mnkf: vec4<u32>,  // M, N, K, flags
    ld: vec4<u32>,    // row lengths of the stored A, B, C (elements); H (products per o)
    ab: vec4<u32>,    // A's stride per o and per i, B's per o and per i (elements)
    cb: vec4<u32>,    // C's stride per o and per i, 0, 0
    off: vec4<u32>,   // where A_0, B_0 and C_0 start (elements), 0
}

@group(0) @binding(0) var<storage, read> bma: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> bmb: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> bmc: array<f32>;
@group(0) @binding(3) var<uniform> bmdims: BmmDims;

const BT: u32 = 64u;  // output tile rows and columns
const BK: u32 = 16u;  // K per stage
// [stage][k][16 vec4 along the 64 rows (A) or columns (B)]: 2 x 16 x 16 vec4 = 8 KB each.
var<workgroup> bsa: array<vec4<f32>, 512>;
var<workgroup> bsb: array<vec4<f32>, 512>;

fn bm_flat_wg(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// One vec4 of the A tile (64 rows x 16 k) at k0 for invocation lid, zeros outside op(A).
fn bm_load_a(lid: u32, base: u32, row0: u32, k0: u32) -> vec4<f32> {
    let M = bmdims.mnkf.x;
    let K = bmdims.mnkf.z;
    let ld = bmdims.ld.x;
    if ((bmdims.mnkf.w & TRANS_A) != 0u) {  // stored [K][M]: 4 rows m of one k
        let k = k0 + lid / 16u;
        let m = row0 + (lid % 16u) * 4u;
        if (k < K && m < M) { return bma[(base + k * ld + m) / 4u]; }
    } else {                                // stored [M][K]: 4 k of one row m
        let m = row0 + lid / 4u;
        let k = k0 + (lid % 4u) * 4u;
        if (m < M && k < K) { return bma[(base + m * ld + k) / 4u]; }
    }
    return vec4<f32>(0.0);
}

// One vec4 of the B tile (16 k x 64 columns) at k0, zeros outside op(B).
fn bm_load_b(lid: u32, base: u32, col0: u32, k0: u32) -> vec4<f32> {
    let N = bmdims.mnkf.y;
    let K = bmdims.mnkf.z;
    let ld = bmdims.ld.y;
    if ((bmdims.mnkf.w & TRANS_B) != 0u) {  // stored [N][K]: 4 k of one column n
        let n = col0 + lid / 4u;
        let k = k0 + (lid % 4u) * 4u;
        if (n < N && k < K) { return bmb[(base + n * ld + k) / 4u]; }
    } else {                                // stored [K][N]: 4 columns n of one k
        let k = k0 + lid / 16u;
        let n = col0 + (lid % 16u) * 4u;
        if (k < K && n < N) { return bmb[(base + k * ld + n) / 4u]; }
    }
    return vec4<f32>(0.0);
}

// Writes the vec4s of bm_load_a/_b into stage s as [k][row or column].
fn bm_store_stage(lid: u32, s: u32, va: vec4<f32>, vb: vec4<f32>) {
    let base = s * 256u;
    if ((bmdims.mnkf.w & TRANS_A) != 0u) {
        bsa[base + lid] = va;
    } else {
        let m = lid / 4u;
        let k = (lid % 4u) * 4u;
        bsa[base + k * 16u + m / 4u][m % 4u] = va.x;
        bsa[base + (k + 1u) * 16u + m / 4u][m % 4u] = va.y;
        bsa[base + (k + 2u) * 16u + m / 4u][m % 4u] = va.z;
        bsa[base + (k + 3u) * 16u + m / 4u][m % 4u] = va.w;
    }
    if ((bmdims.mnkf.w & TRANS_B) != 0u) {
        let n = lid / 4u;
        let k = (lid % 4u) * 4u;
        bsb[base + k * 16u + n / 4u][n % 4u] = vb.x;
        bsb[base + (k + 1u) * 16u + n / 4u][n % 4u] = vb.y;
        bsb[base + (k + 2u) * 16u + n / 4u][n % 4u] = vb.z;
        bsb[base + (k + 3u) * 16u + n / 4u][n % 4u] = vb.w;
    } else {
        bsb[base + lid] = vb;
    }
}

// Four consecutive columns of one row of C_z (ACCUMULATE: old C + v).
fn bm_store4(base: u32, row: u32, col: u32, v: vec4<f32>) {
    if (row >= bmdims.mnkf.x || col >= bmdims.mnkf.y) { return; }
    let idx = base + row * bmdims.ld.z + col;
    var o = v;
    if ((bmdims.mnkf.w & ACCUMULATE) != 0u) {
        o = vec4<f32>(bmc[idx], bmc[idx + 1u], bmc[idx + 2u], bmc[idx + 3u]) + v;
    }
    bmc[idx] = o.x;
    bmc[idx + 1u] = o.y;
    bmc[idx + 2u] = o.z;
    bmc[idx + 3u] = o.w;
}

@compute @workgroup_size(256, 1, 1)
fn matmul_batched(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let M = bmdims.mnkf.x;
    let N = bmdims.mnkf.y;
    let K = bmdims.mnkf.z;
    let flags = bmdims.mnkf.w;
    let H = max(bmdims.ld.w, 1u);
    let fours = M | N | K | bmdims.ld.x | bmdims.ld.y | bmdims.ld.z | bmdims.ab.x | bmdims.ab.y |
                bmdims.ab.z | bmdims.ab.w | bmdims.off.x | bmdims.off.y;
    if ((fours % 4u) != 0u) { return; }
    let tiles_n = (N + BT - 1u) / BT;
    let tiles_m = (M + BT - 1u) / BT;
    let tile = bm_flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * BT;
    let col0 = (tile % tiles_n) * BT;
    if ((flags & CAUSAL_TILES) != 0u && col0 > row0 + BT - 1u) { return; }
    let o = wid.z / H;
    let i = wid.z % H;
    let base_a = bmdims.off.x + o * bmdims.ab.x + i * bmdims.ab.y;
    let base_b = bmdims.off.y + o * bmdims.ab.z + i * bmdims.ab.w;
    let base_c = bmdims.off.z + o * bmdims.cb.x + i * bmdims.cb.y;
    var kbeg = 0u;
    var kend = K;
    if ((flags & K_FROM_ROW) != 0u) { kbeg = min(K, row0); }
    if ((flags & K_TO_ROW) != 0u) { kend = min(K, row0 + BT); }
    let ty = lid / 16u;
    let tx = lid % 16u;

    var r0 = vec4<f32>(0.0);
    var r1 = vec4<f32>(0.0);
    var r2 = vec4<f32>(0.0);
    var r3 = vec4<f32>(0.0);
    // kbeg is a multiple of 64 (or K): every stage but the last is whole; loads mask k >= K.
    let steps = (kend - kbeg + BK - 1u) / BK;
    var va = bm_load_a(lid, base_a, row0, kbeg);
    var vb = bm_load_b(lid, base_b, col0, kbeg);
    bm_store_stage(lid, 0u, va, vb);
    workgroupBarrier();
    for (var t = 0u; t < steps; t = t + 1u) {
        let cur = t & 1u;
        let more = t + 1u < steps;
        if (more) {  // the next stage's global loads are in flight during this stage's math
            va = bm_load_a(lid, base_a, row0, kbeg + (t + 1u) * BK);
            vb = bm_load_b(lid, base_b, col0, kbeg + (t + 1u) * BK);
        }
        let sa0 = cur * 256u + ty;
        let sb0 = cur * 256u + tx;
        for (var k = 0u; k < BK; k = k + 1u) {
            let a = bsa[sa0 + k * 16u];
            let b = bsb[sb0 + k * 16u];
            r0 = fma(vec4<f32>(a.x), b, r0);
            r1 = fma(vec4<f32>(a.y), b, r1);
            r2 = fma(vec4<f32>(a.z), b, r2);
            r3 = fma(vec4<f32>(a.w), b, r3);
        }
        // The other stage was last read in step t - 1, before the barrier that ended it.
        if (more) { bm_store_stage(lid, 1u - cur, va, vb); }
        workgroupBarrier();
    }

    let r = row0 + ty * 4u;
    let c = col0 + tx * 4u;
    bm_store4(base_c, r, c, r0);
    bm_store4(base_c, r + 1u, c, r1);
    bm_store4(base_c, r + 2u, c, r2);
    bm_store4(base_c, r + 3u, c, r3);
}
