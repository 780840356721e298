// 04_matmul.wgsl: matmul_naive, matmul_tiled, matmul_blocked4, matmul_vec4, matmul_vec4_readonly,
// matmul_blocked8, matmul_tiled_f16.
// Reconstructed from TinyGPT's engineering log ("Most of training time is matmul":
// the 16x16 tiling, the 4x4 register blocking, f16-packed storage, the 8x8 register block and the
// vec4 global loads). The seed shows no WGSL; these are our kernels, faithful to what it describes:
// tile shapes and workgroup memory as its numbers say (blocked4 4 KB, blocked8 16 KB of
// workgroup memory), and one bind-group layout for all of them ("blocked4 was wired into
// train.wgsl as a drop-in replacement (same bind-group layout as the naive kernel)").
//
// Decisions (the seed is silent on them; README.md has the long form):
// - Row-major everywhere. C[M, N] = op(A)[M, K] * op(B)[K, N] (+ bias[N]) (+ C), with the flags in
//   dims.w: TRANS_A (A stored [K, M]: dW = X^T dY), TRANS_B (B stored [N, K]: dX = dY W^T),
//   ADD_BIAS (y = x W + b), ACCUMULATE (C += ..., gradient accumulation). One bind-group layout,
//   one uniform, so forward and both backward products go through the same pipelines.
// - The production layout of the seed declares every storage binding "storage" (read_write), so
//   every seed kernel here declares its storage bindings `read_write`, inputs included: that is
//   the seed's fix for the vec4 kernel ("declare all six as var<storage, read_write>"; our layout
//   has four storage bindings and the dims uniform). matmul_vec4_readonly keeps the seed's first,
//   broken vec4 integration (`var<storage, read>` on A and B): the runtime refuses it under the
//   all-"storage" layout with R9 instead of returning wrong data (tests/matmul).
//   Consequence: A and B may not be the same buffer (two writable bindings overlapping, R11).
// - M, N, K are general: loads outside the operands read 0.0, stores outside C are skipped.
//   Indices are u32: M*N, M*K and K*N must stay below 2^32.
// - Grids: the tiles are numbered by the workgroup's flat index wid.y * nwg.x + wid.x (flat_id
//   of the workgroup: flat_id(gid, nwg) / WG), so more than 65535 workgroups run on a 2-D grid
//   from the host's grid_for_workgroups; surplus workgroups of that grid return at once.
//   (The workgroup id, not gid, because a return before a barrier must be workgroup-uniform.)
// - NaN/Inf: every kernel computes the plain f32 sum of the K products a_ik * b_kj (plus bias and
//   the old C): a NaN operand or 0 * Inf in row i / column j makes C[i, j] NaN, infinities of
//   both signs make NaN, infinities of one sign give that infinity. Masked (outside) elements are
//   0.0 on both sides of a product for k >= K, so they never add NaN to a stored element.
// - matmul_vec4 reads A and B as array<vec4<f32>>: it needs the contiguous dimension of each
//   stored operand (A: K, or M with TRANS_A; B: N, or K with TRANS_B) to be a multiple of 4.
//   Otherwise the kernel writes nothing (a uniform early return) and the host must pick another
//   kernel (tests/matmul falls back to matmul_blocked4).
// - matmul_tiled_f16: B holds two f16 per u32 (pack2x16float), low half first, each stored row
//   padded to a whole word: row stride (N + 1) / 2 words, or (K + 1) / 2 with TRANS_B. Only
//   unpack2x16float on u32: no "shader-f16" feature needed.
// - var<workgroup> is zero-initialized in WGSL (R17): every tile element here is written before
//   it is read in each K step, so the ports do not zero them.

const WG: u32 = 256u;

// 2-D grid for more than 65535 workgroups (R12): the host picks nwg.x <= 65535.
fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * WG + gid.x;
}

// The workgroup's index on the same grid: flat_id(gid, nwg) / WG, from workgroup-uniform values.
fn flat_wg(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

const TRANS_A: u32 = 1u;     // A is stored [K, M]
const TRANS_B: u32 = 2u;     // B is stored [N, K]
const ADD_BIAS: u32 = 4u;    // C += bias[col]
const ACCUMULATE: u32 = 8u;  // C = old C + result

@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> bias: array<f32>;
@group(0) @binding(4) var<uniform> dims: vec4<u32>;  // (M, N, K, flags)

// op(A)[row, k], 0.0 outside the M x K operand.
fn load_a(row: u32, k: u32) -> f32 {
    let M = dims.x;
    let K = dims.z;
    if (row >= M || k >= K) { return 0.0; }
    if ((dims.w & TRANS_A) != 0u) { return a[k * M + row]; }
    return a[row * K + k];
}

// op(B)[k, col], 0.0 outside the K x N operand.
fn load_b(k: u32, col: u32) -> f32 {
    let N = dims.y;
    let K = dims.z;
    if (k >= K || col >= N) { return 0.0; }
    if ((dims.w & TRANS_B) != 0u) { return b[col * K + k]; }
    return b[k * N + col];
}

// The epilogue of every kernel: (row, col) is inside C.
fn store_c(row: u32, col: u32, acc: f32) {
    var v = acc;
    if ((dims.w & ADD_BIAS) != 0u) { v = v + bias[col]; }
    let idx = row * dims.y + col;
    if ((dims.w & ACCUMULATE) != 0u) { v = c[idx] + v; }
    c[idx] = v;
}

// ---- matmul_naive: one invocation per output element, flat_id over M * N -----------------------
@compute @workgroup_size(256, 1, 1)
fn matmul_naive(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    if (i >= M * N) { return; }
    let row = i / N;
    let col = i % N;
    var acc = 0.0;
    for (var k = 0u; k < K; k = k + 1u) {
        acc = acc + load_a(row, k) * load_b(k, col);
    }
    store_c(row, col, acc);
}

// ---- matmul_tiled: 16x16 output tile per workgroup, 16x16 tiles of A and B in workgroup memory --
const TS: u32 = 16u;
var<workgroup> tile_a: array<f32, 256>;  // [ty][k]
var<workgroup> tile_b: array<f32, 256>;  // [k][tx]

@compute @workgroup_size(256, 1, 1)
fn matmul_tiled(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let tiles_n = (N + TS - 1u) / TS;
    let tiles_m = (M + TS - 1u) / TS;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let ty = lid / TS;
    let tx = lid % TS;
    let row = (tile / tiles_n) * TS + ty;
    let col = (tile % tiles_n) * TS + tx;
    var acc = 0.0;
    let steps = (K + TS - 1u) / TS;
    for (var t = 0u; t < steps; t = t + 1u) {
        tile_a[ty * TS + tx] = load_a(row, t * TS + tx);
        tile_b[ty * TS + tx] = load_b(t * TS + ty, col);
        workgroupBarrier();
        for (var k = 0u; k < TS; k = k + 1u) {
            acc = acc + tile_a[ty * TS + k] * tile_b[k * TS + tx];
        }
        workgroupBarrier();
    }
    if (row < M && col < N) { store_c(row, col, acc); }
}

// ---- matmul_blocked4: 4x4 outputs per invocation, 64x64 output tile, K in steps of 8 -----------
// Workgroup memory 2 x 8 x 64 f32 = 4 KB (the seed's number).
const B4: u32 = 64u;
const B4K: u32 = 8u;
var<workgroup> b4_a: array<f32, 512>;  // [k][m], 8 x 64
var<workgroup> b4_b: array<f32, 512>;  // [k][n], 8 x 64

@compute @workgroup_size(256, 1, 1)
fn matmul_blocked4(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let tiles_n = (N + B4 - 1u) / B4;
    let tiles_m = (M + B4 - 1u) / B4;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * B4;
    let col0 = (tile % tiles_n) * B4;
    let ty = lid / 16u;
    let tx = lid % 16u;
    var acc: array<f32, 16>;
    var av: array<f32, 4>;
    var bv: array<f32, 4>;
    let steps = (K + B4K - 1u) / B4K;
    for (var t = 0u; t < steps; t = t + 1u) {
        let k0 = t * B4K;
        for (var i = 0u; i < 2u; i = i + 1u) {
            let e = lid + i * WG;  // 0..511
            let am = e / B4K;      // A: consecutive invocations walk k (contiguous in A)
            let ak = e % B4K;
            b4_a[ak * B4 + am] = load_a(row0 + am, k0 + ak);
            let bk = e / B4;       // B: consecutive invocations walk n (contiguous in B)
            let bn = e % B4;
            b4_b[bk * B4 + bn] = load_b(k0 + bk, col0 + bn);
        }
        workgroupBarrier();
        for (var k = 0u; k < B4K; k = k + 1u) {
            for (var i = 0u; i < 4u; i = i + 1u) {
                av[i] = b4_a[k * B4 + ty * 4u + i];
                bv[i] = b4_b[k * B4 + tx * 4u + i];
            }
            for (var i = 0u; i < 4u; i = i + 1u) {
                for (var j = 0u; j < 4u; j = j + 1u) {
                    acc[i * 4u + j] = acc[i * 4u + j] + av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i = i + 1u) {
        for (var j = 0u; j < 4u; j = j + 1u) {
            let row = row0 + ty * 4u + i;
            let col = col0 + tx * 4u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 4u + j]); }
        }
    }
}

// ---- matmul_vec4: matmul_blocked4 with 128-bit global loads of A and B ------------------------
// Invocations 0..127 load the 64x8 A tile (128 vec4), 128..255 the 8x64 B tile. Every binding is
// read_write: the seed's fix, matching its production layout (all "storage").
@group(0) @binding(0) var<storage, read_write> a4: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> b4: array<vec4<f32>>;

@compute @workgroup_size(256, 1, 1)
fn matmul_vec4(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let trans_a = (dims.w & TRANS_A) != 0u;
    let trans_b = (dims.w & TRANS_B) != 0u;
    // vec4 rows need the stored row lengths to be multiples of 4: otherwise write nothing.
    let lda = select(K, M, trans_a);
    let ldb = select(N, K, trans_b);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    let tiles_n = (N + B4 - 1u) / B4;
    let tiles_m = (M + B4 - 1u) / B4;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * B4;
    let col0 = (tile % tiles_n) * B4;
    let ty = lid / 16u;
    let tx = lid % 16u;
    var acc: array<f32, 16>;
    var av: array<f32, 4>;
    var bv: array<f32, 4>;
    let steps = (K + B4K - 1u) / B4K;
    for (var t = 0u; t < steps; t = t + 1u) {
        let k0 = t * B4K;
        if (lid < 128u) {
            if (trans_a) {  // stored [K, M]: a vec4 is 4 rows m of one k
                let k = lid / 16u;
                let m = (lid % 16u) * 4u;
                var v = vec4<f32>(0.0);
                if (k0 + k < K && row0 + m < M) { v = a4[((k0 + k) * M + row0 + m) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_a[k * B4 + m + q] = v[q]; }
            } else {        // stored [M, K]: a vec4 is 4 k of one row m
                let m = lid / 2u;
                let k = (lid % 2u) * 4u;
                var v = vec4<f32>(0.0);
                if (row0 + m < M && k0 + k < K) { v = a4[((row0 + m) * K + k0 + k) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_a[(k + q) * B4 + m] = v[q]; }
            }
        } else {
            let e = lid - 128u;
            if (trans_b) {  // stored [N, K]: a vec4 is 4 k of one column n
                let n = e / 2u;
                let k = (e % 2u) * 4u;
                var v = vec4<f32>(0.0);
                if (col0 + n < N && k0 + k < K) { v = b4[((col0 + n) * K + k0 + k) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_b[(k + q) * B4 + n] = v[q]; }
            } else {        // stored [K, N]: a vec4 is 4 columns n of one k
                let k = e / 16u;
                let n = (e % 16u) * 4u;
                var v = vec4<f32>(0.0);
                if (k0 + k < K && col0 + n < N) { v = b4[((k0 + k) * N + col0 + n) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_b[k * B4 + n + q] = v[q]; }
            }
        }
        workgroupBarrier();
        for (var k = 0u; k < B4K; k = k + 1u) {
            for (var i = 0u; i < 4u; i = i + 1u) {
                av[i] = b4_a[k * B4 + ty * 4u + i];
                bv[i] = b4_b[k * B4 + tx * 4u + i];
            }
            for (var i = 0u; i < 4u; i = i + 1u) {
                for (var j = 0u; j < 4u; j = j + 1u) {
                    acc[i * 4u + j] = acc[i * 4u + j] + av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i = i + 1u) {
        for (var j = 0u; j < 4u; j = j + 1u) {
            let row = row0 + ty * 4u + i;
            let col = col0 + tx * 4u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 4u + j]); }
        }
    }
}

// ---- matmul_vec4_readonly: the seed's first vec4 integration, kept as the R9 witness ----------
// The same body as matmul_vec4, but A and B declared `var<storage, read>` (as the standalone
// bench had them, where layout "auto" inferred read-only-storage). Under the production layout
// (all "storage") a browser returned wrong data ("diverged loss to 88.67 vs WASM's 2.94"); the
// runtime refuses that pipeline (R9). With layout "auto" it is correct.
@group(0) @binding(0) var<storage, read> a4_ro: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b4_ro: array<vec4<f32>>;

@compute @workgroup_size(256, 1, 1)
fn matmul_vec4_readonly(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let trans_a = (dims.w & TRANS_A) != 0u;
    let trans_b = (dims.w & TRANS_B) != 0u;
    let lda = select(K, M, trans_a);
    let ldb = select(N, K, trans_b);
    if ((lda % 4u) != 0u || (ldb % 4u) != 0u) { return; }
    let tiles_n = (N + B4 - 1u) / B4;
    let tiles_m = (M + B4 - 1u) / B4;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * B4;
    let col0 = (tile % tiles_n) * B4;
    let ty = lid / 16u;
    let tx = lid % 16u;
    var acc: array<f32, 16>;
    var av: array<f32, 4>;
    var bv: array<f32, 4>;
    let steps = (K + B4K - 1u) / B4K;
    for (var t = 0u; t < steps; t = t + 1u) {
        let k0 = t * B4K;
        if (lid < 128u) {
            if (trans_a) {
                let k = lid / 16u;
                let m = (lid % 16u) * 4u;
                var v = vec4<f32>(0.0);
                if (k0 + k < K && row0 + m < M) { v = a4_ro[((k0 + k) * M + row0 + m) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_a[k * B4 + m + q] = v[q]; }
            } else {
                let m = lid / 2u;
                let k = (lid % 2u) * 4u;
                var v = vec4<f32>(0.0);
                if (row0 + m < M && k0 + k < K) { v = a4_ro[((row0 + m) * K + k0 + k) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_a[(k + q) * B4 + m] = v[q]; }
            }
        } else {
            let e = lid - 128u;
            if (trans_b) {
                let n = e / 2u;
                let k = (e % 2u) * 4u;
                var v = vec4<f32>(0.0);
                if (col0 + n < N && k0 + k < K) { v = b4_ro[((col0 + n) * K + k0 + k) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_b[(k + q) * B4 + n] = v[q]; }
            } else {
                let k = e / 16u;
                let n = (e % 16u) * 4u;
                var v = vec4<f32>(0.0);
                if (k0 + k < K && col0 + n < N) { v = b4_ro[((k0 + k) * N + col0 + n) / 4u]; }
                for (var q = 0u; q < 4u; q = q + 1u) { b4_b[k * B4 + n + q] = v[q]; }
            }
        }
        workgroupBarrier();
        for (var k = 0u; k < B4K; k = k + 1u) {
            for (var i = 0u; i < 4u; i = i + 1u) {
                av[i] = b4_a[k * B4 + ty * 4u + i];
                bv[i] = b4_b[k * B4 + tx * 4u + i];
            }
            for (var i = 0u; i < 4u; i = i + 1u) {
                for (var j = 0u; j < 4u; j = j + 1u) {
                    acc[i * 4u + j] = acc[i * 4u + j] + av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i = i + 1u) {
        for (var j = 0u; j < 4u; j = j + 1u) {
            let row = row0 + ty * 4u + i;
            let col = col0 + tx * 4u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 4u + j]); }
        }
    }
}

// ---- matmul_blocked8: 8x8 outputs per invocation, 128x128 output tile, K in steps of 16 -------
// The seed's negative result (slower than blocked4 at every size on its GPU). Workgroup memory
// 2 x 16 x 128 f32 = 16 KB, the seed's number and exactly WebGPU's default limit.
const B8: u32 = 128u;
const B8K: u32 = 16u;
var<workgroup> b8_a: array<f32, 2048>;  // [k][m], 16 x 128
var<workgroup> b8_b: array<f32, 2048>;  // [k][n], 16 x 128

@compute @workgroup_size(256, 1, 1)
fn matmul_blocked8(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let tiles_n = (N + B8 - 1u) / B8;
    let tiles_m = (M + B8 - 1u) / B8;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let row0 = (tile / tiles_n) * B8;
    let col0 = (tile % tiles_n) * B8;
    let ty = lid / 16u;
    let tx = lid % 16u;
    var acc: array<f32, 64>;
    var av: array<f32, 8>;
    var bv: array<f32, 8>;
    let steps = (K + B8K - 1u) / B8K;
    for (var t = 0u; t < steps; t = t + 1u) {
        let k0 = t * B8K;
        for (var i = 0u; i < 8u; i = i + 1u) {
            let e = lid + i * WG;  // 0..2047
            let am = e / B8K;
            let ak = e % B8K;
            b8_a[ak * B8 + am] = load_a(row0 + am, k0 + ak);
            let bk = e / B8;
            let bn = e % B8;
            b8_b[bk * B8 + bn] = load_b(k0 + bk, col0 + bn);
        }
        workgroupBarrier();
        for (var k = 0u; k < B8K; k = k + 1u) {
            for (var i = 0u; i < 8u; i = i + 1u) {
                av[i] = b8_a[k * B8 + ty * 8u + i];
                bv[i] = b8_b[k * B8 + tx * 8u + i];
            }
            for (var i = 0u; i < 8u; i = i + 1u) {
                for (var j = 0u; j < 8u; j = j + 1u) {
                    acc[i * 8u + j] = acc[i * 8u + j] + av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 8u; i = i + 1u) {
        for (var j = 0u; j < 8u; j = j + 1u) {
            let row = row0 + ty * 8u + i;
            let col = col0 + tx * 8u + j;
            if (row < M && col < N) { store_c(row, col, acc[i * 8u + j]); }
        }
    }
}

// ---- matmul_tiled_f16: matmul_tiled with B (the weights) as two f16 per u32 --------------------
// The seed's other negative result (tiled + f16 slower than plain tiled at 2048^3). Tiles hold
// f32: the f16 halves are widened as they are loaded.
@group(0) @binding(1) var<storage, read_write> b_f16: array<u32>;

// op(B)[k, col] from the packed words, 0.0 outside the K x N operand.
fn load_b_f16(k: u32, col: u32) -> f32 {
    let N = dims.y;
    let K = dims.z;
    if (k >= K || col >= N) { return 0.0; }
    if ((dims.w & TRANS_B) != 0u) {
        let h = unpack2x16float(b_f16[col * ((K + 1u) / 2u) + k / 2u]);
        return select(h.x, h.y, (k & 1u) != 0u);
    }
    let h = unpack2x16float(b_f16[k * ((N + 1u) / 2u) + col / 2u]);
    return select(h.x, h.y, (col & 1u) != 0u);
}

@compute @workgroup_size(256, 1, 1)
fn matmul_tiled_f16(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
    let M = dims.x;
    let N = dims.y;
    let K = dims.z;
    let tiles_n = (N + TS - 1u) / TS;
    let tiles_m = (M + TS - 1u) / TS;
    let tile = flat_wg(wid, nwg);
    if (tile >= tiles_m * tiles_n) { return; }
    let ty = lid / TS;
    let tx = lid % TS;
    let row = (tile / tiles_n) * TS + ty;
    let col = (tile % tiles_n) * TS + tx;
    var acc = 0.0;
    let steps = (K + TS - 1u) / TS;
    for (var t = 0u; t < steps; t = t + 1u) {
        tile_a[ty * TS + tx] = load_a(row, t * TS + tx);
        tile_b[ty * TS + tx] = load_b_f16(t * TS + ty, col);
        workgroupBarrier();
        for (var k = 0u; k < TS; k = k + 1u) {
            acc = acc + tile_a[ty * TS + k] * tile_b[k * TS + tx];
        }
        workgroupBarrier();
    }
    if (row < M && col < N) { store_c(row, col, acc); }
}
