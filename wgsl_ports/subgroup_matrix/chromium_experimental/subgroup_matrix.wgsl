// wgslvk's own WGSL (not from the seeds): an f16-input, f32-accumulating matmul on Dawn's
// chromium-experimental-subgroup-matrix (docs/dawn/features/subgroup_matrix.md), written as a
// browser trainer would write it. C[M,N] (+)= op(A)[M,K] op(B)[K,N], row-major, with the matmul
// family's flags: TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]), ACCUMULATE 8. So the
// forward (x W), dX = dY W^T (TRANS_B) and dW += x^T dY (TRANS_A | ACCUMULATE) are one kernel.
// One workgroup = one subgroup of 32 computes a 64x64 block of C as 4x4 16x16 result matrices.
// Interior blocks load their 16x16 operand tiles straight from the buffers; a block at an edge
// of C, a K step past K, or strides that are not multiples of 8 elements (16 bytes, the
// alignment cooperative loads need) go through workgroup memory with zeros outside the operands,
// and store C element by element inside its bounds. Needs a device whose subgroup size is 32
// (the runtime refuses a workgroup x that is not a multiple of the subgroup size).
// Port: sgmm_f16.comp (wgsl_ports/subgroup_matrix/README.md).
enable f16;
enable chromium_experimental_subgroup_matrix;

@group(0) @binding(0) var<storage, read> sa_in: array<f16>;
@group(0) @binding(1) var<storage, read> sb_in: array<f16>;
@group(0) @binding(2) var<storage, read_write> sc_out: array<f32>;
@group(0) @binding(3) var<uniform> sdims: vec4<u32>;  // (M, N, K, flags)

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ACCUMULATE: u32 = 8u;

var<workgroup> stage_a: array<f16, 1024>;  // A block, row-major [64][16]
var<workgroup> stage_b: array<f16, 1024>;  // B block, row-major [16][64]
var<workgroup> stage_c: array<f32, 256>;   // one C tile, row-major [16][16]

@compute @workgroup_size(32, 1, 1)
fn sgmm_f16(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
  let M = sdims.x;
  let N = sdims.y;
  let K = sdims.z;
  let flags = sdims.w;
  let row0 = wid.y * 64u;
  let col0 = wid.x * 64u;
  let ta = (flags & TRANS_A) != 0u;
  let tb = (flags & TRANS_B) != 0u;
  let lda = select(K, M, ta);  // stored row length of A
  let ldb = select(N, K, tb);  // stored row length of B
  let inside = row0 + 64u <= M && col0 + 64u <= N;
  let aligned = lda % 8u == 0u && ldb % 8u == 0u;
  let direct_c = inside && N % 4u == 0u;

  var acc: array<subgroup_matrix_result<f32, 16, 16>, 16>;
  if ((flags & ACCUMULATE) != 0u) {
    for (var t = 0u; t < 16u; t++) {
      let r = row0 + (t / 4u) * 16u;
      let c = col0 + (t % 4u) * 16u;
      if (direct_c) {
        acc[t] = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&sc_out, r * N + c, false, N);
      } else {
        workgroupBarrier();
        for (var e = lid; e < 256u; e += 32u) {
          let gr = r + e / 16u;
          let gc = c + e % 16u;
          stage_c[e] = 0.0;
          if (gr < M && gc < N) {
            stage_c[e] = sc_out[gr * N + gc];
          }
        }
        workgroupBarrier();
        acc[t] = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&stage_c, 0u, false, 16u);
      }
    }
  }

  for (var k0 = 0u; k0 < K; k0 += 16u) {
    if (inside && aligned && k0 + 16u <= K) {
      var b0: subgroup_matrix_right<f16, 16, 16>;
      var b1: subgroup_matrix_right<f16, 16, 16>;
      var b2: subgroup_matrix_right<f16, 16, 16>;
      var b3: subgroup_matrix_right<f16, 16, 16>;
      if (tb) {  // B stored [N][K]: element (k, n) at n * K + k, column-major
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, (col0 + 0u) * ldb + k0, true, ldb);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, (col0 + 16u) * ldb + k0, true, ldb);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, (col0 + 32u) * ldb + k0, true, ldb);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, (col0 + 48u) * ldb + k0, true, ldb);
      } else {
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, k0 * ldb + col0 + 0u, false, ldb);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, k0 * ldb + col0 + 16u, false, ldb);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, k0 * ldb + col0 + 32u, false, ldb);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&sb_in, k0 * ldb + col0 + 48u, false, ldb);
      }
      for (var i = 0u; i < 4u; i++) {
        var a: subgroup_matrix_left<f16, 16, 16>;
        if (ta) {  // A stored [K][M]: element (m, k) at k * M + m, column-major
          a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&sa_in, k0 * lda + row0 + i * 16u, true, lda);
        } else {
          a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&sa_in, (row0 + i * 16u) * lda + k0, false, lda);
        }
        acc[i * 4u + 0u] = subgroupMatrixMultiplyAccumulate(a, b0, acc[i * 4u + 0u]);
        acc[i * 4u + 1u] = subgroupMatrixMultiplyAccumulate(a, b1, acc[i * 4u + 1u]);
        acc[i * 4u + 2u] = subgroupMatrixMultiplyAccumulate(a, b2, acc[i * 4u + 2u]);
        acc[i * 4u + 3u] = subgroupMatrixMultiplyAccumulate(a, b3, acc[i * 4u + 3u]);
      }
    } else {
      workgroupBarrier();  // the previous staged step's loads are done
      for (var e = lid; e < 1024u; e += 32u) {
        let gr = row0 + e / 16u;
        let gk = k0 + e % 16u;
        let ia = select(gr * lda + gk, gk * lda + gr, ta);
        stage_a[e] = select(0.0h, sa_in[min(ia, arrayLength(&sa_in) - 1u)], gr < M && gk < K);
        let bk = k0 + e / 64u;
        let bc = col0 + e % 64u;
        let ib = select(bk * ldb + bc, bc * ldb + bk, tb);
        stage_b[e] = select(0.0h, sb_in[min(ib, arrayLength(&sb_in) - 1u)], bk < K && bc < N);
      }
      workgroupBarrier();
      let b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&stage_b, 0u, false, 64u);
      let b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&stage_b, 16u, false, 64u);
      let b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&stage_b, 32u, false, 64u);
      let b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&stage_b, 48u, false, 64u);
      for (var i = 0u; i < 4u; i++) {
        let a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&stage_a, i * 256u, false, 16u);
        acc[i * 4u + 0u] = subgroupMatrixMultiplyAccumulate(a, b0, acc[i * 4u + 0u]);
        acc[i * 4u + 1u] = subgroupMatrixMultiplyAccumulate(a, b1, acc[i * 4u + 1u]);
        acc[i * 4u + 2u] = subgroupMatrixMultiplyAccumulate(a, b2, acc[i * 4u + 2u]);
        acc[i * 4u + 3u] = subgroupMatrixMultiplyAccumulate(a, b3, acc[i * 4u + 3u]);
      }
    }
  }

  for (var t = 0u; t < 16u; t++) {
    let r = row0 + (t / 4u) * 16u;
    let c = col0 + (t % 4u) * 16u;
    if (direct_c) {
      subgroupMatrixStore(&sc_out, r * N + c, acc[t], false, N);
    } else {
      workgroupBarrier();
      subgroupMatrixStore(&stage_c, 0u, acc[t], false, 16u);
      workgroupBarrier();
      for (var e = lid; e < 256u; e += 32u) {
        let gr = r + e / 16u;
        let gc = c + e % 16u;
        if (gr < M && gc < N) {
          sc_out[gr * N + gc] = stage_c[e];
        }
      }
    }
  }
}
