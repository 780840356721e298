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
    let ta = (flags & TRANS_A) != 0u;
    let tb = (flags & TRANS_B) != 0u;
    // The loads' work is done once here, not per stage (issue 23, as matmul_native_k16). A's vec4
    // for lid: [K][M] stored: k = lid / 16, m = row0 + (lid % 16) * 4 (4 rows of one k); [M][K]:
    // m = row0 + lid / 4, k = (lid % 4) * 4 (4 k of one row). Its index at stage t is ia + t * sa
    // (exact: the offsets, strides and k are multiples of 4); a load past M or K reads 0.
    let am = select(row0 + lid / 4u, row0 + (lid % 16u) * 4u, ta);
    let ako = select((lid % 4u) * 4u, lid / 16u, ta);
    let aok = am < M;
    var ia = select((base_a + am * bmdims.ld.x + kbeg + ako) / 4u,
                    (base_a + (kbeg + ako) * bmdims.ld.x + am) / 4u, ta);
    let sa = select(BK / 4u, BK * bmdims.ld.x / 4u, ta);
    // B's: [N][K] stored: n = col0 + lid / 4, k = (lid % 4) * 4; [K][N]: k = lid / 16,
    // n = col0 + (lid % 16) * 4.
    let bn = select(col0 + (lid % 16u) * 4u, col0 + lid / 4u, tb);
    let bko = select(lid / 16u, (lid % 4u) * 4u, tb);
    let bok = bn < N;
    var ib = select((base_b + (kbeg + bko) * bmdims.ld.y + bn) / 4u,
                    (base_b + bn * bmdims.ld.y + kbeg + bko) / 4u, tb);
    let sb = select(BK * bmdims.ld.y / 4u, BK / 4u, tb);
    // Workgroup stores as [k][row or column]: a vec4 along the tile's rows (A [K][M], B [K][N]) is
    // stored whole at lid; one along k (A [M][K], B [N][K]) goes to 4 scalars
    // [(k + j) * 16 + m / 4][m % 4], m = lid / 4, k = (lid % 4) * 4.
    let q = (lid % 4u) * 4u * 16u + lid / 16u;
    let qr = (lid / 4u) % 4u;

    var va = vec4<f32>(0.0);
    var vb = vec4<f32>(0.0);
    for (var t = 0u; t <= steps; t = t + 1u) {
        // Iteration t loads stage t (t < steps; in flight during the math), computes stage t - 1
        // (t > 0) from its half of workgroup memory, then stores stage t in the other half, which
        // was last read in iteration t - 1, before the barrier that ended it.
        let k0 = kbeg + t * BK;
        let more = t < steps;
        if (more) {
            va = vec4<f32>(0.0);
            if (aok && k0 + ako < K) { va = bma[ia]; }
            ia = ia + sa;
            vb = vec4<f32>(0.0);
            if (bok && k0 + bko < K) { vb = bmb[ib]; }
            ib = ib + sb;
        }
        if (t > 0u) {
            let sa0 = ((t - 1u) & 1u) * 256u + ty;
            let sb0 = ((t - 1u) & 1u) * 256u + tx;
            for (var k = 0u; k < BK; k = k + 1u) {
                let a = bsa[sa0 + k * 16u];
                let b = bsb[sb0 + k * 16u];
                r0 = fma(vec4<f32>(a.x), b, r0);
                r1 = fma(vec4<f32>(a.y), b, r1);
                r2 = fma(vec4<f32>(a.z), b, r2);
                r3 = fma(vec4<f32>(a.w), b, r3);
            }
        }
        if (more) {
            let s = (t & 1u) * 256u;
            if (ta) {
                bsa[s + lid] = va;
            } else {
                bsa[s + q][qr] = va.x;
                bsa[s + q + 16u][qr] = va.y;
                bsa[s + q + 32u][qr] = va.z;
                bsa[s + q + 48u][qr] = va.w;
            }
            if (tb) {
                bsb[s + q][qr] = vb.x;
                bsb[s + q + 16u][qr] = vb.y;
                bsb[s + q + 32u][qr] = vb.z;
                bsb[s + q + 48u][qr] = vb.w;
            } else {
                bsb[s + lid] = vb;
            }
        }
        workgroupBarrier();
    }

    let r = row0 + ty * 4u;
    let c = col0 + tx * 4u;
    bm_store4(base_c, r, c, r0);
    bm_store4(base_c, r + 1u, c, r1);
    bm_store4(base_c, r + 2u, c, r2);
    bm_store4(base_c, r + 3u, c, r3);
}
