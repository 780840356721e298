// matmul_native.wgsl: wgslvk's own matmul kernels, not from the browser engine (ours; the seed
// family is 04_matmul.wgsl, from TinyGPT's engineering log).
//   matmul_native    fp32 GEMM tuned for a large GPU: 128x128 output tile per workgroup, 8x8
//                    outputs per invocation (256 invocations), K in steps of 8, vec4 global loads,
//                    double-buffered workgroup memory (2 stages x (8x128 A + 8x128 B) f32 =
//                    16 KB: exactly WebGPU's default maxComputeWorkgroupStorageSize, no raised
//                    limit needed), one barrier per K step.
//   matmul_bias_grad db[N] = column sums of dY[M, N] (the bias gradient of y = x W + b), fixed
//                    summation order, no atomics: the same bits on every run.
//
// Same conventions as 04_matmul.wgsl (row-major; dims = (M, N, K, flags) with TRANS_A, TRANS_B,
// ADD_BIAS, ACCUMULATE; masked edges; tiles numbered by flat_wg), but the WebGPU-proper access
// modes: A, B and bias are `read`, so layout "auto" gives read-only-storage for them (and a
// driver may use its read-only load path). It is therefore not a drop-in for the seed's
// all-"storage" production layout; its own layout is what the host binds.
//
// Like matmul_vec4 it reads A and B as vec4: the stored row lengths (A: K, or M with TRANS_A;
// B: N, or K with TRANS_B) must be multiples of 4, else it writes nothing (the host picks
// another kernel). Every GPT shape (d_model 768, B*T 4096, vocab 16384) qualifies.
// NaN/Inf behave as in 04_matmul.wgsl: the plain f32 sum of the products.

const WG: u32 = 256u;

fn flat_wg(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ADD_BIAS: u32 = 4u;
const ACCUMULATE: u32 = 8u;

@group(0) @binding(0) var<storage, read> na: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> nb: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> nc: array<f32>;
@group(0) @binding(3) var<storage, read> nbias: array<f32>;
@group(0) @binding(4) var<uniform> ndims: vec4<u32>;  // (M, N, K, flags)

const NT: u32 = 128u;  // output tile rows (and columns)
const NK: u32 = 8u;    // K per stage
const NBR: u32 = 32u;  // vec4 per k row of the B tile (NT / 4)
// [stage][k][32 vec4 along the 128 rows (A) or columns (B)]: 2 x 8 x 32 vec4 = 8 KB each.
var<workgroup> sa: array<vec4<f32>, 512>;
var<workgroup> sb: array<vec4<f32>, 512>;

// One vec4 of the A tile for K step k0, for invocation lid: 256 vec4 cover the 128 x 8 tile.
fn native_load_a(lid: u32, row0: u32, k0: u32) -> vec4<f32> {
    let M = ndims.x;
    let K = ndims.z;
    if ((ndims.w & TRANS_A) != 0u) {  // stored [K, M]: 4 rows m of one k
        let k = k0 + lid / 32u;
        let m = row0 + (lid % 32u) * 4u;
        if (k < K && m < M) { return na[(k * M + m) / 4u]; }
    } else {                          // stored [M, K]: 4 k of one row m
        let m = row0 + lid / 2u;
        let k = k0 + (lid % 2u) * 4u;
        if (m < M && k < K) { return na[(m * K + k) / 4u]; }
    }
    return vec4<f32>(0.0);
}

fn native_load_b(lid: u32, col0: u32, k0: u32) -> vec4<f32> {
    let N = ndims.y;
    let K = ndims.z;
    if ((ndims.w & TRANS_B) != 0u) {  // stored [N, K]: 4 k of one column n
        let n = col0 + lid / 2u;
        let k = k0 + (lid % 2u) * 4u;
        if (n < N && k < K) { return nb[(n * K + k) / 4u]; }
    } else {                          // stored [K, N]: 4 columns n of one k
        let k = k0 + lid / NBR;
        let n = col0 + (lid % NBR) * 4u;
        if (k < K && n < N) { return nb[(k * N + n) / 4u]; }
    }
    return vec4<f32>(0.0);
}

// Writes the vec4s loaded by native_load_a/_b into stage s, as [k][row or column].
fn native_store_stage(lid: u32, s: u32, va: vec4<f32>, vb: vec4<f32>) {
    let base_a = s * 256u;
    if ((ndims.w & TRANS_A) != 0u) {
        sa[base_a + lid] = va;
    } else {
        let m = lid / 2u;
        let k = (lid % 2u) * 4u;
        sa[base_a + k * 32u + m / 4u][m % 4u] = va.x;
        sa[base_a + (k + 1u) * 32u + m / 4u][m % 4u] = va.y;
        sa[base_a + (k + 2u) * 32u + m / 4u][m % 4u] = va.z;
        sa[base_a + (k + 3u) * 32u + m / 4u][m % 4u] = va.w;
    }
    let base_b = s * NK * NBR;
    if ((ndims.w & TRANS_B) != 0u) {
        let n = lid / 2u;
        let k = (lid % 2u) * 4u;
        sb[base_b + k * NBR + n / 4u][n % 4u] = vb.x;
        sb[base_b + (k + 1u) * NBR + n / 4u][n % 4u] = vb.y;
        sb[base_b + (k + 2u) * NBR + n / 4u][n % 4u] = vb.z;
        sb[base_b + (k + 3u) * NBR + n / 4u][n % 4u] = vb.w;
    } else {
        sb[base_b + lid] = vb;
    }
}

// The epilogue of one row: up to 4 consecutive columns from col, bias and old C as flagged.
fn native_store4(row: u32, col: u32, v: vec4<f32>) {
    let M = ndims.x;
    let N = ndims.y;
    if (row >= M) { return; }
    for (var q = 0u; q < 4u; q = q + 1u) {
        if (col + q < N) {
            var o = v[q];
            if ((ndims.w & ADD_BIAS) != 0u) { o = o + nbias[col + q]; }
            let idx = row * N + col + q;
            if ((ndims.w & ACCUMULATE) != 0u) { o = nc[idx] + o; }
            nc[idx] = o;
        }
    }
}

// Invocation (ty, tx) of the 16 x 16 grid owns rows {ty*4 .. ty*4+3, 64+ty*4 .. 64+ty*4+3} and
// the same columns from tx: two vec4 of the tile per operand and K step, so the workgroup-memory
// reads are 128-bit and a warp's B reads are 16 distinct consecutive vec4. The 64 accumulators
// are 16 separate vec4 variables and the per-k statements are written out with constant
// components: an indexed 64-float array (the first version of this kernel, and the seed's
// blocked8) is what a driver may keep in local memory, which ran at ~2 TFLOP/s on an H200.
@compute @workgroup_size(256, 1, 1)
fn matmul_native(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let M = ndims.x;
    let N = ndims.y;
    let K = ndims.z;
    let lda = select(K, M, (ndims.w & TRANS_A) != 0u);
    let ldb = select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    let tiles_n = (N + NT - 1u) / NT;
    let tiles_m = (M + NT - 1u) / NT;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * NT;
    let col0 = (tile % tiles_n) * NT;
    let ty = lid / 16u;
    let tx = lid % 16u;

    // Row r = 0..7, column half a (tx*4..) or b (64+tx*4..).
    var r0a = vec4<f32>(0.0);
    var r1a = vec4<f32>(0.0);
    var r2a = vec4<f32>(0.0);
    var r3a = vec4<f32>(0.0);
    var r4a = vec4<f32>(0.0);
    var r5a = vec4<f32>(0.0);
    var r6a = vec4<f32>(0.0);
    var r7a = vec4<f32>(0.0);
    var r0b = vec4<f32>(0.0);
    var r1b = vec4<f32>(0.0);
    var r2b = vec4<f32>(0.0);
    var r3b = vec4<f32>(0.0);
    var r4b = vec4<f32>(0.0);
    var r5b = vec4<f32>(0.0);
    var r6b = vec4<f32>(0.0);
    var r7b = vec4<f32>(0.0);
    let steps = (K + NK - 1u) / NK;
    var va = native_load_a(lid, row0, 0u);
    var vb = native_load_b(lid, col0, 0u);
    native_store_stage(lid, 0u, va, vb);
    workgroupBarrier();
    for (var t = 0u; t < steps; t = t + 1u) {
        let cur = t & 1u;
        let more = t + 1u < steps;
        if (more) {  // the next stage's global loads are in flight during this stage's math
            va = native_load_a(lid, row0, (t + 1u) * NK);
            vb = native_load_b(lid, col0, (t + 1u) * NK);
        }
        let base_a = cur * 256u + ty;
        let base_b = cur * NK * NBR + tx;
        for (var k = 0u; k < NK; k = k + 1u) {
            let a0 = sa[base_a + k * 32u];
            let a1 = sa[base_a + k * 32u + 16u];
            let b0 = sb[base_b + k * NBR];
            r0a = fma(vec4<f32>(a0.x), b0, r0a);
            r1a = fma(vec4<f32>(a0.y), b0, r1a);
            r2a = fma(vec4<f32>(a0.z), b0, r2a);
            r3a = fma(vec4<f32>(a0.w), b0, r3a);
            r4a = fma(vec4<f32>(a1.x), b0, r4a);
            r5a = fma(vec4<f32>(a1.y), b0, r5a);
            r6a = fma(vec4<f32>(a1.z), b0, r6a);
            r7a = fma(vec4<f32>(a1.w), b0, r7a);
            let b1 = sb[base_b + k * NBR + 16u];
            r0b = fma(vec4<f32>(a0.x), b1, r0b);
            r1b = fma(vec4<f32>(a0.y), b1, r1b);
            r2b = fma(vec4<f32>(a0.z), b1, r2b);
            r3b = fma(vec4<f32>(a0.w), b1, r3b);
            r4b = fma(vec4<f32>(a1.x), b1, r4b);
            r5b = fma(vec4<f32>(a1.y), b1, r5b);
            r6b = fma(vec4<f32>(a1.z), b1, r6b);
            r7b = fma(vec4<f32>(a1.w), b1, r7b);
        }
        // The other stage was last read in step t - 1, before the barrier that ended it.
        if (more) { native_store_stage(lid, 1u - cur, va, vb); }
        workgroupBarrier();
    }

    let rlo = row0 + ty * 4u;  // rows r0..r3; r4..r7 are 64 further
    let ca = col0 + tx * 4u;   // columns of the a half; the b half is 64 further
    native_store4(rlo, ca, r0a);
    native_store4(rlo + 1u, ca, r1a);
    native_store4(rlo + 2u, ca, r2a);
    native_store4(rlo + 3u, ca, r3a);
    native_store4(rlo + 64u, ca, r4a);
    native_store4(rlo + 65u, ca, r5a);
    native_store4(rlo + 66u, ca, r6a);
    native_store4(rlo + 67u, ca, r7a);
    native_store4(rlo, ca + 64u, r0b);
    native_store4(rlo + 1u, ca + 64u, r1b);
    native_store4(rlo + 2u, ca + 64u, r2b);
    native_store4(rlo + 3u, ca + 64u, r3b);
    native_store4(rlo + 64u, ca + 64u, r4b);
    native_store4(rlo + 65u, ca + 64u, r5b);
    native_store4(rlo + 66u, ca + 64u, r6b);
    native_store4(rlo + 67u, ca + 64u, r7b);
}

// ---- matmul_native_k16: 128 x 64 tiles, K step 16, 128 invocations (issue 23) -------------------
// matmul_native's products, bindings, flags and epilogue (native_store4) with another blocking,
// the fastest of a sweep of 10 blockings on an H200 at the gpt110m trainer's products with more
// than 96 128x128 tiles (wgsl_ports/matmul/README.md): a 128-row x 64-column tile per workgroup
// of 128 invocations, each owning 8 x 8 outputs (rows ty*4.., 64+ty*4..; columns tx*4.., 32+tx*4..
// for ty = lid / 8, tx = lid % 8), K in stages of 16 with one stage of workgroup memory
// (16 x 128 A + 16 x 64 B f32 = 12 KB + 384 B of padding, inside WebGPU's default 16 KB): the
// next stage's global loads (4 vec4 of A, 2 of B per invocation) are in flight during this
// stage's math, then two barriers around the store. Dispatch: ceil(M/128) * ceil(N/64)
// workgroups (flat_wg).
// Each load's index, row/column bounds flag and k offset and the workgroup store addresses are
// computed once before the K loop (a predicated load and an index increment per stage inside):
// with them recomputed per stage the driver's K loop spent ~200 instructions on 6 loads, and the
// H200 ran 36.5 TFLOP/s at 4096^3 against 38.8 this way, same bits (issue 23, session 14;
// wgsl_ports/matmul/README.md "Machine code of the fp32 GEMMs").
// The same summation order as matmul_native (one fma chain per element over k = 0, 1, ...), so
// the same bits wherever the device contracts both alike; held to the same bound_ulps(n).
const KT: u32 = 64u;   // output tile columns (rows: NT)
const KK: u32 = 16u;   // K per stage
const KWG: u32 = 128u; // invocations
// Workgroup tiles as [k][row] (ka, 32 vec4 along the 128 rows) and [k][column] (kb, 16 vec4),
// each group of 4 k rows followed by 2 vec4 of padding: k row k starts at (k / 4) * KA_G +
// (k % 4) * 32 (kb: KB_G, 16). The transposing scalar stores' 32 lanes write 4 k rows 4 apart:
// unpadded (rows 512 floats apart) they hit 8 banks, 4-way conflicted; with 8 floats more per
// group, 32 banks. The math's vec4 reads (one k row for all lanes) stay aligned.
const KA_G: u32 = 130u;  // vec4 per 4 k rows of ka: 4 * 32 + 2
const KB_G: u32 = 66u;   // vec4 per 4 k rows of kb: 4 * 16 + 2
var<workgroup> ka: array<vec4<f32>, 520>;  // 4 * KA_G
var<workgroup> kb: array<vec4<f32>, 264>;  // 4 * KB_G

@compute @workgroup_size(128, 1, 1)
fn matmul_native_k16(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let M = ndims.x;
    let N = ndims.y;
    let K = ndims.z;
    let lda = select(K, M, (ndims.w & TRANS_A) != 0u);
    let ldb = select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    let tiles_n = (N + KT - 1u) / KT;
    let tiles_m = (M + NT - 1u) / NT;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * NT;
    let col0 = (tile % tiles_n) * KT;
    let ty = lid / 8u;
    let tx = lid % 8u;

    // Row r = 0..7 (rows ty*4 + r, r >= 4: 64 further), column half a (tx*4..) or b (32+tx*4..).
    var r0a = vec4<f32>(0.0);
    var r1a = vec4<f32>(0.0);
    var r2a = vec4<f32>(0.0);
    var r3a = vec4<f32>(0.0);
    var r4a = vec4<f32>(0.0);
    var r5a = vec4<f32>(0.0);
    var r6a = vec4<f32>(0.0);
    var r7a = vec4<f32>(0.0);
    var r0b = vec4<f32>(0.0);
    var r1b = vec4<f32>(0.0);
    var r2b = vec4<f32>(0.0);
    var r3b = vec4<f32>(0.0);
    var r4b = vec4<f32>(0.0);
    var r5b = vec4<f32>(0.0);
    var r6b = vec4<f32>(0.0);
    var r7b = vec4<f32>(0.0);
    let steps = (K + KK - 1u) / KK;
    let ta = (ndims.w & TRANS_A) != 0u;
    let tb = (ndims.w & TRANS_B) != 0u;
    // Load c of A is vec4 i = lid + c * KWG of the 128 x 16 tile: [K, M] stored: k = i / 32,
    // m = row0 + (i % 32) * 4 (4 rows of one k); [M, K]: m = row0 + i / 4, k = (i % 4) * 4 (4 k
    // of one row). Its index at stage t is ia + t * sa (exact: M, K, m and k are multiples of 4
    // where a load happens); a load past M or K reads 0.
    var ia: array<u32, 4>;
    var kao: array<u32, 4>;
    var oka: array<bool, 4>;
    for (var c = 0u; c < 4u; c = c + 1u) {
        let i = lid + c * KWG;
        let m = select(row0 + i / 4u, row0 + (i % 32u) * 4u, ta);
        kao[c] = select((i % 4u) * 4u, i / 32u, ta);
        oka[c] = m < M;
        ia[c] = select((m * K + kao[c]) / 4u, (kao[c] * M + m) / 4u, ta);
    }
    let sa = select(KK / 4u, KK * M / 4u, ta);
    // Load c of B, vec4 i = lid + c * KWG of the 16 x 64 tile: [N, K] stored: n = col0 + i / 4,
    // k = (i % 4) * 4; [K, N]: k = i / 16, n = col0 + (i % 16) * 4.
    var ib: array<u32, 2>;
    var kbo: array<u32, 2>;
    var okb: array<bool, 2>;
    for (var c = 0u; c < 2u; c = c + 1u) {
        let i = lid + c * KWG;
        let n = select(col0 + (i % 16u) * 4u, col0 + i / 4u, tb);
        kbo[c] = select(i / 16u, (i % 4u) * 4u, tb);
        okb[c] = n < N;
        ib[c] = select((kbo[c] * N + n) / 4u, (n * K + kbo[c]) / 4u, tb);
    }
    let sb = select(KK * N / 4u, KK / 4u, tb);
    // Workgroup stores: a vec4 along the tile's rows (A [K, M], B [K, N]) is stored whole, vec4 i
    // at k row i / 32 (kb: 16), place i % 32; one along k (A [M, K], B [N, K]) goes to 4 scalars
    // ka[(k / 4) * KA_G + j * 32 + m / 4][m % 4], m = i / 4, k = (i % 4) * 4 (kb: KB_G, 16, n).
    let qa = (lid % 4u) * KA_G + (lid / 4u) / 4u;  // c adds 32 rows: 8 vec4 of a k row
    let ra = (lid / 4u) % 4u;
    let qb = (lid % 4u) * KB_G + (lid / 4u) / 4u;  // c adds 32 columns: 8 vec4
    let rb = (lid / 4u) % 4u;
    let pb = (lid / 64u) * KB_G + lid % 64u;  // c adds 8 k rows: 2 groups

    var va: array<vec4<f32>, 4>;
    var vb: array<vec4<f32>, 2>;
    for (var t = 0u; t <= steps; t = t + 1u) {
        // Iteration t loads stage t (t < steps; in flight during the math), computes stage t - 1
        // (t > 0) from workgroup memory, then stores stage t there.
        let k0 = t * KK;
        let more = t < steps;
        if (more) {
            for (var c = 0u; c < 4u; c = c + 1u) {
                va[c] = vec4<f32>(0.0);
                if (oka[c] && k0 + kao[c] < K) { va[c] = na[ia[c]]; }
                ia[c] = ia[c] + sa;
            }
            for (var c = 0u; c < 2u; c = c + 1u) {
                vb[c] = vec4<f32>(0.0);
                if (okb[c] && k0 + kbo[c] < K) { vb[c] = nb[ib[c]]; }
                ib[c] = ib[c] + sb;
            }
        }
        if (t > 0u) {
            for (var k = 0u; k < KK; k = k + 1u) {
                let a0 = ka[(k / 4u) * KA_G + (k % 4u) * 32u + ty];
                let a1 = ka[(k / 4u) * KA_G + (k % 4u) * 32u + ty + 16u];
                let b0 = kb[(k / 4u) * KB_G + (k % 4u) * 16u + tx];
                let b1 = kb[(k / 4u) * KB_G + (k % 4u) * 16u + tx + 8u];
                r0a = fma(vec4<f32>(a0.x), b0, r0a);
                r1a = fma(vec4<f32>(a0.y), b0, r1a);
                r2a = fma(vec4<f32>(a0.z), b0, r2a);
                r3a = fma(vec4<f32>(a0.w), b0, r3a);
                r4a = fma(vec4<f32>(a1.x), b0, r4a);
                r5a = fma(vec4<f32>(a1.y), b0, r5a);
                r6a = fma(vec4<f32>(a1.z), b0, r6a);
                r7a = fma(vec4<f32>(a1.w), b0, r7a);
                r0b = fma(vec4<f32>(a0.x), b1, r0b);
                r1b = fma(vec4<f32>(a0.y), b1, r1b);
                r2b = fma(vec4<f32>(a0.z), b1, r2b);
                r3b = fma(vec4<f32>(a0.w), b1, r3b);
                r4b = fma(vec4<f32>(a1.x), b1, r4b);
                r5b = fma(vec4<f32>(a1.y), b1, r5b);
                r6b = fma(vec4<f32>(a1.z), b1, r6b);
                r7b = fma(vec4<f32>(a1.w), b1, r7b);
            }
            workgroupBarrier();  // every invocation is done reading the previous stage
        }
        if (more) {
            if (ta) {
                for (var c = 0u; c < 4u; c = c + 1u) { ka[c * KA_G + lid] = va[c]; }
            } else {
                for (var c = 0u; c < 4u; c = c + 1u) {
                    ka[qa + c * 8u][ra] = va[c].x;
                    ka[qa + c * 8u + 32u][ra] = va[c].y;
                    ka[qa + c * 8u + 64u][ra] = va[c].z;
                    ka[qa + c * 8u + 96u][ra] = va[c].w;
                }
            }
            if (tb) {
                for (var c = 0u; c < 2u; c = c + 1u) {
                    kb[qb + c * 8u][rb] = vb[c].x;
                    kb[qb + c * 8u + 16u][rb] = vb[c].y;
                    kb[qb + c * 8u + 32u][rb] = vb[c].z;
                    kb[qb + c * 8u + 48u][rb] = vb[c].w;
                }
            } else {
                for (var c = 0u; c < 2u; c = c + 1u) { kb[pb + c * 2u * KB_G] = vb[c]; }
            }
            workgroupBarrier();
        }
    }

    let rlo = row0 + ty * 4u;  // rows r0..r3; r4..r7 are 64 further
    let ca = col0 + tx * 4u;   // columns of the a half; the b half is 32 further
    native_store4(rlo, ca, r0a);
    native_store4(rlo + 1u, ca, r1a);
    native_store4(rlo + 2u, ca, r2a);
    native_store4(rlo + 3u, ca, r3a);
    native_store4(rlo + 64u, ca, r4a);
    native_store4(rlo + 65u, ca, r5a);
    native_store4(rlo + 66u, ca, r6a);
    native_store4(rlo + 67u, ca, r7a);
    native_store4(rlo, ca + 32u, r0b);
    native_store4(rlo + 1u, ca + 32u, r1b);
    native_store4(rlo + 2u, ca + 32u, r2b);
    native_store4(rlo + 3u, ca + 32u, r3b);
    native_store4(rlo + 64u, ca + 32u, r4b);
    native_store4(rlo + 65u, ca + 32u, r5b);
    native_store4(rlo + 66u, ca + 32u, r6b);
    native_store4(rlo + 67u, ca + 32u, r7b);
}

// ---- matmul_native_splitk + matmul_splitk_reduce: split-K for the small-grid GPT products ------
// A product whose 128x128 grid leaves most SMs idle (dW of a 768x768 weight: 36 tiles for 132 SMs)
// is cut along K into S slices: workgroup flat_wg = split * tiles + tile computes tile `tile` over
// K slice `split` (NK-aligned slices of splitk_chunk(K, S) = ceil(ceil(K / NK) / S) * NK; a slice
// past K is empty and writes zeros) and writes the raw partial sum, no bias, no old C, into
// part[split][M][N] (binding 2, S * M * N floats). matmul_splitk_reduce then adds the S partials
// in a fixed order, ((p0 + p1) + p2) + ..., then the bias, then old C first as native_store4 does.
// matmul_native's bindings but the bias (binding 3, unused: the reduce adds it); S in bits
// 16..23 of the flags (1..255; the low bits as always).
// A different summation order from matmul_native (per element: S fma chains, then S - 1 adds),
// so a different kernel with its own bits; its bound against the double reference is the same
// bound_ulps(n) (any order), reference.hpp.

const SPLITK_SHIFT: u32 = 16u;

fn splitk_chunk(K: u32, S: u32) -> u32 {
    let stages = (K + NK - 1u) / NK;
    return ((stages + S - 1u) / S) * NK;
}

// The raw partial of one row: up to 4 consecutive columns from col, into slice `split`.
fn splitk_store4(split: u32, row: u32, col: u32, v: vec4<f32>) {
    let M = ndims.x;
    let N = ndims.y;
    if (row >= M) { return; }
    for (var q = 0u; q < 4u; q = q + 1u) {
        if (col + q < N) {
            nc[split * M * N + row * N + col + q] = v[q];
        }
    }
}

@compute @workgroup_size(256, 1, 1)
fn matmul_native_splitk(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let M = ndims.x;
    let N = ndims.y;
    let K = ndims.z;
    let S = (ndims.w >> SPLITK_SHIFT) & 255u;
    let lda = select(K, M, (ndims.w & TRANS_A) != 0u);
    let ldb = select(N, K, (ndims.w & TRANS_B) != 0u);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u || S == 0u) { return; }
    let tiles_n = (N + NT - 1u) / NT;
    let tiles_m = (M + NT - 1u) / NT;
    let tiles = tiles_m * tiles_n;
    let wg_index = flat_wg(wid, nwg);
    if (wg_index >= tiles * S) { return; }
    let split = wg_index / tiles;
    let tile = wg_index % tiles;
    let row0 = (tile / tiles_n) * NT;
    let col0 = (tile % tiles_n) * NT;
    let chunk = splitk_chunk(K, S);
    let kbeg = min(K, split * chunk);
    let kend = min(K, kbeg + chunk);
    let ty = lid / 16u;
    let tx = lid % 16u;

    var r0a = vec4<f32>(0.0);
    var r1a = vec4<f32>(0.0);
    var r2a = vec4<f32>(0.0);
    var r3a = vec4<f32>(0.0);
    var r4a = vec4<f32>(0.0);
    var r5a = vec4<f32>(0.0);
    var r6a = vec4<f32>(0.0);
    var r7a = vec4<f32>(0.0);
    var r0b = vec4<f32>(0.0);
    var r1b = vec4<f32>(0.0);
    var r2b = vec4<f32>(0.0);
    var r3b = vec4<f32>(0.0);
    var r4b = vec4<f32>(0.0);
    var r5b = vec4<f32>(0.0);
    var r6b = vec4<f32>(0.0);
    var r7b = vec4<f32>(0.0);
    // kend - kbeg is a multiple of NK except in the last slice, where kend = K masks the loads.
    let steps = (kend - kbeg + NK - 1u) / NK;
    var va = native_load_a(lid, row0, kbeg);
    var vb = native_load_b(lid, col0, kbeg);
    native_store_stage(lid, 0u, va, vb);
    workgroupBarrier();
    for (var t = 0u; t < steps; t = t + 1u) {
        let cur = t & 1u;
        let more = t + 1u < steps;
        if (more) {
            va = native_load_a(lid, row0, kbeg + (t + 1u) * NK);
            vb = native_load_b(lid, col0, kbeg + (t + 1u) * NK);
        }
        let base_a = cur * 256u + ty;
        let base_b = cur * NK * NBR + tx;
        for (var k = 0u; k < NK; k = k + 1u) {
            let a0 = sa[base_a + k * 32u];
            let a1 = sa[base_a + k * 32u + 16u];
            let b0 = sb[base_b + k * NBR];
            r0a = fma(vec4<f32>(a0.x), b0, r0a);
            r1a = fma(vec4<f32>(a0.y), b0, r1a);
            r2a = fma(vec4<f32>(a0.z), b0, r2a);
            r3a = fma(vec4<f32>(a0.w), b0, r3a);
            r4a = fma(vec4<f32>(a1.x), b0, r4a);
            r5a = fma(vec4<f32>(a1.y), b0, r5a);
            r6a = fma(vec4<f32>(a1.z), b0, r6a);
            r7a = fma(vec4<f32>(a1.w), b0, r7a);
            let b1 = sb[base_b + k * NBR + 16u];
            r0b = fma(vec4<f32>(a0.x), b1, r0b);
            r1b = fma(vec4<f32>(a0.y), b1, r1b);
            r2b = fma(vec4<f32>(a0.z), b1, r2b);
            r3b = fma(vec4<f32>(a0.w), b1, r3b);
            r4b = fma(vec4<f32>(a1.x), b1, r4b);
            r5b = fma(vec4<f32>(a1.y), b1, r5b);
            r6b = fma(vec4<f32>(a1.z), b1, r6b);
            r7b = fma(vec4<f32>(a1.w), b1, r7b);
        }
        if (more) { native_store_stage(lid, 1u - cur, va, vb); }
        workgroupBarrier();
    }

    let rlo = row0 + ty * 4u;
    let ca = col0 + tx * 4u;
    splitk_store4(split, rlo, ca, r0a);
    splitk_store4(split, rlo + 1u, ca, r1a);
    splitk_store4(split, rlo + 2u, ca, r2a);
    splitk_store4(split, rlo + 3u, ca, r3a);
    splitk_store4(split, rlo + 64u, ca, r4a);
    splitk_store4(split, rlo + 65u, ca, r5a);
    splitk_store4(split, rlo + 66u, ca, r6a);
    splitk_store4(split, rlo + 67u, ca, r7a);
    splitk_store4(split, rlo, ca + 64u, r0b);
    splitk_store4(split, rlo + 1u, ca + 64u, r1b);
    splitk_store4(split, rlo + 2u, ca + 64u, r2b);
    splitk_store4(split, rlo + 3u, ca + 64u, r3b);
    splitk_store4(split, rlo + 64u, ca + 64u, r4b);
    splitk_store4(split, rlo + 65u, ca + 64u, r5b);
    splitk_store4(split, rlo + 66u, ca + 64u, r6b);
    splitk_store4(split, rlo + 67u, ca + 64u, r7b);
}

// C[i] = (((part[0][i] + part[1][i]) + ...) + bias) then old C + that: one invocation per
// element of C (flat_wg * 256 + lid), the slices in ascending order. Bit-identical run to run.
@group(0) @binding(0) var<storage, read> rk_part: array<f32>;
@group(0) @binding(1) var<storage, read_write> rk_c: array<f32>;
@group(0) @binding(2) var<storage, read> rk_bias: array<f32>;
@group(0) @binding(3) var<uniform> rk_dims: vec4<u32>;  // (M, N, S, flags: ADD_BIAS, ACCUMULATE)

@compute @workgroup_size(256, 1, 1)
fn matmul_splitk_reduce(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let M = rk_dims.x;
    let N = rk_dims.y;
    let S = rk_dims.z;
    let mn = M * N;
    let idx = flat_wg(wid, nwg) * WG + lid;
    if (idx >= mn || S == 0u) { return; }
    var o = rk_part[idx];
    for (var p = 1u; p < S; p = p + 1u) {
        o = o + rk_part[p * mn + idx];
    }
    if ((rk_dims.w & ADD_BIAS) != 0u) { o = o + rk_bias[idx % N]; }
    if ((rk_dims.w & ACCUMULATE) != 0u) { o = rk_c[idx] + o; }
    rk_c[idx] = o;
}

// ---- matmul_bias_grad: db[col] (+)= sum over rows of dy[row, col] ------------------------------
// bg_dims.w = L, the row lanes per column: 4, 8, 16, 32 or 64 (0 reads as 4, the kernel's first
// form; any other value: nothing is written). A workgroup owns C = 256 / L columns; lane r of a
// column sums rows r, r+L, r+2L, ... sequentially in f32 from 0.0, then the L partials are added
// as an adjacent-pair tree, p'[j] = p[2j] + p[2j+1] level by level (L = 4: (p0 + p1) + (p2 + p3)),
// then old db + that (ACCUMULATE). The order depends only on M and L, so the result is
// bit-identical from run to run and device to device with the same f32 rounding. More lanes put
// more workgroups on a GPU (ceil(N / C)): the host picks L (matmul::bias_grad_lanes).
@group(0) @binding(0) var<storage, read> dy: array<f32>;
@group(0) @binding(1) var<storage, read_write> db: array<f32>;
@group(0) @binding(2) var<uniform> bg_dims: vec4<u32>;  // (M rows, N columns, flags: ACCUMULATE only, L)

var<workgroup> bg_part: array<f32, 256>;  // [lane][column]

@compute @workgroup_size(256, 1, 1)
fn matmul_bias_grad(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let M = bg_dims.x;
    let N = bg_dims.y;
    let L = select(bg_dims.w, 4u, bg_dims.w == 0u);
    if (L != 4u && L != 8u && L != 16u && L != 32u && L != 64u) { return; }
    let C = WG / L;
    let group = flat_wg(wid, nwg);
    if (group >= (N + C - 1u) / C) { return; }
    let lane = lid / C;
    let c = lid % C;
    let col = group * C + c;
    var s = 0.0;
    if (col < N) {
        for (var row = lane; row < M; row = row + L) {
            s = s + dy[row * N + col];
        }
    }
    bg_part[lid] = s;
    workgroupBarrier();
    for (var w = L; w > 1u; w = w / 2u) {
        let h = w / 2u;
        var v = 0.0;
        if (lane < h) { v = bg_part[2u * lane * C + c] + bg_part[(2u * lane + 1u) * C + c]; }
        workgroupBarrier();
        if (lane < h) { bg_part[lane * C + c] = v; }
        workgroupBarrier();
    }
    if (lane == 0u && col < N) {
        var total = bg_part[c];
        if ((bg_dims.z & ACCUMULATE) != 0u) { total = db[col] + total; }
        db[col] = total;
    }
}
