// wgslvk's own WGSL (not from the seeds): sgmm_f16_tiled8_n256, sgmm_f16_tiled8_d2's product,
// flags, bindings and bound (wgsl_ports/subgroup_matrix/README.md, "sgmm_f16_tiled8_n256"), written
// out by gen_tiled.py, on 128x256 blocks of C: workgroup (32, 8, 1) = 8 subgroups (Dawn's rule that
// the workgroup's x is a multiple of the subgroup size makes local_invocation_id.y each subgroup's
// index), each a 64x64 part as 4x4 16x16 result matrices (each left and right matrix it loads is
// used 4 times: 3/4 of the global and workgroup-memory loads a multiply-add of the 128x128
// kernels). C[M,N] (+)= op(A)[M,K] op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2
// (B stored [N, K]), ACCUMULATE 8.
// K advances 16 at a time (two tile buffers of K 32 would need 61,440 bytes): workgroup memory
// holds A as [m][k] and B as [n][k] (rows of 16 + 8 f16) whatever the flags, an operand stored the
// other way round transposed while it is copied (4x4 blocks of four vec4<f16>); tiles are fetched
// into registers two K steps ahead (two register sets, the loop unrolled by two) and stored into
// workgroup memory after the step before theirs has multiplied, one barrier per step, two tile
// buffers; a tile wholly inside its operand (row length a multiple of 4) is fetched with one
// vec4<f16> load per vector and no per-vector bounds checks, edge tiles and the last partial K
// step stage zeros outside the operands element by element. For each result matrix the
// multiply-adds are sgmm_f16_tiled8_d2's, in the same order (bit-identical outputs).
// C as sgmm_f16_tiled8_d2: result matrices straight from/to the buffer when the block is inside C
// and N % 4 == 0, else element by element through workgroup memory inside its bounds. Workgroup
// memory 45,056 bytes (2 x 18,432 for the tiles, 8,192 for C at edge blocks): the device must
// be requested with it (over WebGPU's default 16,384). A and B are read as vec4<f16>: their
// buffers hold whole vec4s (pad with zeros to a multiple of 8 bytes). Dispatch
// (ceil(N / 256), ceil(M / 128), 1), the blocks visited in groups of 8 block rows. Port:
// sgmm_f16_tiled8_n256.comp.
enable f16;
enable chromium_experimental_subgroup_matrix;
// The subgroup's offsets derive from local_invocation_id.y, uniform in each subgroup by the
// workgroup-size rule above, which Tint's uniformity analysis does not know.
diagnostic(off, chromium.subgroup_matrix_uniformity);

@group(0) @binding(0) var<storage, read> ta_in: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> tb_in: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> tc_out: array<f32>;
@group(0) @binding(3) var<uniform> tdims: vec4<u32>;  // (M, N, K, flags)

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ACCUMULATE: u32 = 8u;

var<workgroup> tile_a: array<f16, 6144>;  // 2 x A [128][16 + 8]
var<workgroup> tile_b: array<f16, 12288>;  // 2 x B [256][16 + 8] (n, k)
var<workgroup> tile_c: array<f32, 2048>;  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.
fn fetch_a(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return ta_in[(row * ld + col) / 4u];
  }
  var v = vec4<f16>();
  if (row < rows && col + 0u < ld) {
    let i0 = row * ld + col + 0u;
    v.x = ta_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    let i1 = row * ld + col + 1u;
    v.y = ta_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    let i2 = row * ld + col + 2u;
    v.z = ta_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    let i3 = row * ld + col + 3u;
    v.w = ta_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

fn fetch_b(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return tb_in[(row * ld + col) / 4u];
  }
  var v = vec4<f16>();
  if (row < rows && col + 0u < ld) {
    let i0 = row * ld + col + 0u;
    v.x = tb_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    let i1 = row * ld + col + 1u;
    v.y = tb_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    let i2 = row * ld + col + 2u;
    v.z = tb_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    let i3 = row * ld + col + 3u;
    v.w = tb_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.
fn c_in(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32) {
  for (var e = lx; e < 256u; e += 32u) {
    let gr = r + e / 16u;
    let gc = c + e % 16u;
    tile_c[base + e] = 0.0;
    if (gr < M && gc < N) {
      tile_c[base + e] = tc_out[gr * N + gc];
    }
  }
}

fn c_out(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32) {
  for (var e = lx; e < 256u; e += 32u) {
    let gr = r + e / 16u;
    let gc = c + e % 16u;
    if (gr < M && gc < N) {
      tc_out[gr * N + gc] = tile_c[base + e];
    }
  }
}

@compute @workgroup_size(32, 8, 1)
fn sgmm_f16_tiled8_n256(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(local_invocation_id) lxy: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
  let M = tdims.x;
  let N = tdims.y;
  let K = tdims.z;
  let flags = tdims.w;
  let ta = (flags & TRANS_A) != 0u;
  let tb = (flags & TRANS_B) != 0u;

  // The block: dispatch order walks 8 block rows per block column.
  let gx = (N + 255u) / 256u;
  let gy = (M + 127u) / 128u;
  let pid = wid.y * gx + wid.x;
  let grow = (pid / (8u * gx)) * 8u;
  let rows_g = min(gy - grow, 8u);
  let inner = pid % (8u * gx);
  let row0 = (grow + inner % rows_g) * 128u;
  let col0 = (inner / rows_g) * 256u;

  let sg = lxy.y;  // this subgroup's 64x64 part of the block
  let srow = (sg / 4u) * 64u;
  let scol = (sg % 4u) * 64u;
  let cbase = sg * 256u;  // its C tile in workgroup memory
  let direct_c = row0 + 128u <= M && col0 + 256u <= N && N % 4u == 0u;
  let a_rows = select(M, K, ta);
  let a_ld = select(K, M, ta);
  let b_rows = select(K, N, tb);
  let b_ld = select(N, K, tb);

  // The subgroup's result matrices, named (an array indexed in loops went to local memory).
  var c00: subgroup_matrix_result<f32, 16, 16>;
  var c01: subgroup_matrix_result<f32, 16, 16>;
  var c02: subgroup_matrix_result<f32, 16, 16>;
  var c03: subgroup_matrix_result<f32, 16, 16>;
  var c10: subgroup_matrix_result<f32, 16, 16>;
  var c11: subgroup_matrix_result<f32, 16, 16>;
  var c12: subgroup_matrix_result<f32, 16, 16>;
  var c13: subgroup_matrix_result<f32, 16, 16>;
  var c20: subgroup_matrix_result<f32, 16, 16>;
  var c21: subgroup_matrix_result<f32, 16, 16>;
  var c22: subgroup_matrix_result<f32, 16, 16>;
  var c23: subgroup_matrix_result<f32, 16, 16>;
  var c30: subgroup_matrix_result<f32, 16, 16>;
  var c31: subgroup_matrix_result<f32, 16, 16>;
  var c32: subgroup_matrix_result<f32, 16, 16>;
  var c33: subgroup_matrix_result<f32, 16, 16>;
  if ((flags & ACCUMULATE) != 0u) {
    if (direct_c) {
      c00 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 0u, false, N);
      c01 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 16u, false, N);
      c02 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 32u, false, N);
      c03 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 48u, false, N);
      c10 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 0u, false, N);
      c11 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 16u, false, N);
      c12 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 32u, false, N);
      c13 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 48u, false, N);
      c20 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 0u, false, N);
      c21 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 16u, false, N);
      c22 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 32u, false, N);
      c23 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 48u, false, N);
      c30 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 0u, false, N);
      c31 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 16u, false, N);
      c32 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 32u, false, N);
      c33 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 48u, false, N);
    } else {
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N);
      workgroupBarrier();
      c00 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N);
      workgroupBarrier();
      c01 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 32u, M, N);
      workgroupBarrier();
      c02 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 48u, M, N);
      workgroupBarrier();
      c03 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N);
      workgroupBarrier();
      c10 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N);
      workgroupBarrier();
      c11 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 32u, M, N);
      workgroupBarrier();
      c12 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 48u, M, N);
      workgroupBarrier();
      c13 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 0u, M, N);
      workgroupBarrier();
      c20 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 16u, M, N);
      workgroupBarrier();
      c21 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 32u, M, N);
      workgroupBarrier();
      c22 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 48u, M, N);
      workgroupBarrier();
      c23 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 0u, M, N);
      workgroupBarrier();
      c30 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 16u, M, N);
      workgroupBarrier();
      c31 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 32u, M, N);
      workgroupBarrier();
      c32 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 48u, M, N);
      workgroupBarrier();
      c33 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
    }
  }

  let steps = (K + 15u) / 16u;
  var ra0: vec4<f16>;
  var ra1: vec4<f16>;
  var ra2: vec4<f16>;
  var ra3: vec4<f16>;
  var rb0: vec4<f16>;
  var rb1: vec4<f16>;
  var rb2: vec4<f16>;
  var rb3: vec4<f16>;
  var ra0_1: vec4<f16>;
  var ra1_1: vec4<f16>;
  var ra2_1: vec4<f16>;
  var ra3_1: vec4<f16>;
  var rb0_1: vec4<f16>;
  var rb1_1: vec4<f16>;
  var rb2_1: vec4<f16>;
  var rb3_1: vec4<f16>;
  // Tiles s + 2 are fetched into registers while step s multiplies, and stored into workgroup
  // memory after step s + 1 has multiplied: their loads have two steps to arrive.
  if (steps > 0u) {  // the first K step's tiles, and the second's into the other registers
    if (!ta) {  // stored [m][k]
      if (row0 + 128u <= a_rows && 0u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
        ra0 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + 0u + ((lid) & 3u) * 4u) / 4u];
        ra1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + 0u + ((lid + 256u) & 3u) * 4u) / 4u];
      } else {
        ra0 = fetch_a(row0 + ((lid) >> 2u), 0u + ((lid) & 3u) * 4u, a_rows, a_ld);
        ra1 = fetch_a(row0 + ((lid + 256u) >> 2u), 0u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
      }
    } else {  // stored [k][m]: 4x4 blocks
      if (lid < 128u) {  // 128 blocks
        let ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
        let ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
        if (0u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0 = ta_in[((0u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra1 = ta_in[((0u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra2 = ta_in[((0u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra3 = ta_in[((0u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
        } else {
          ra0 = fetch_a(0u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
          ra1 = fetch_a(0u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
          ra2 = fetch_a(0u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
          ra3 = fetch_a(0u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
        }
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 256u <= b_rows && 0u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + 0u + ((lid) & 3u) * 4u) / 4u];
        rb1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + 0u + ((lid + 256u) & 3u) * 4u) / 4u];
        rb2 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + 0u + ((lid + 512u) & 3u) * 4u) / 4u];
        rb3 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + 0u + ((lid + 768u) & 3u) * 4u) / 4u];
      } else {
        rb0 = fetch_b(col0 + ((lid) >> 2u), 0u + ((lid) & 3u) * 4u, b_rows, b_ld);
        rb1 = fetch_b(col0 + ((lid + 256u) >> 2u), 0u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
        rb2 = fetch_b(col0 + ((lid + 512u) >> 2u), 0u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
        rb3 = fetch_b(col0 + ((lid + 768u) >> 2u), 0u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
      let bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
      if (0u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0 = tb_in[((0u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
        rb1 = tb_in[((0u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
        rb2 = tb_in[((0u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
        rb3 = tb_in[((0u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
      } else {
        rb0 = fetch_b(0u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
        rb1 = fetch_b(0u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
        rb2 = fetch_b(0u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
        rb3 = fetch_b(0u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
      }
    }
    if (!ta) {
      let oa0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      let oa1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
    } else {
      if (lid < 128u) {
        let oa0 = (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
        tile_a[oa0] = ra0.x;
        tile_a[oa0 + 1u] = ra1.x;
        tile_a[oa0 + 2u] = ra2.x;
        tile_a[oa0 + 3u] = ra3.x;
        tile_a[oa0 + 24u] = ra0.y;
        tile_a[oa0 + 25u] = ra1.y;
        tile_a[oa0 + 26u] = ra2.y;
        tile_a[oa0 + 27u] = ra3.y;
        tile_a[oa0 + 48u] = ra0.z;
        tile_a[oa0 + 49u] = ra1.z;
        tile_a[oa0 + 50u] = ra2.z;
        tile_a[oa0 + 51u] = ra3.z;
        tile_a[oa0 + 72u] = ra0.w;
        tile_a[oa0 + 73u] = ra1.w;
        tile_a[oa0 + 74u] = ra2.w;
        tile_a[oa0 + 75u] = ra3.w;
      }
    }
    if (tb) {
      let ob0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      let ob1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      let ob2 = ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      let ob3 = ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    } else {
      let ob0 = (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb1.x;
      tile_b[ob0 + 2u] = rb2.x;
      tile_b[ob0 + 3u] = rb3.x;
      tile_b[ob0 + 24u] = rb0.y;
      tile_b[ob0 + 25u] = rb1.y;
      tile_b[ob0 + 26u] = rb2.y;
      tile_b[ob0 + 27u] = rb3.y;
      tile_b[ob0 + 48u] = rb0.z;
      tile_b[ob0 + 49u] = rb1.z;
      tile_b[ob0 + 50u] = rb2.z;
      tile_b[ob0 + 51u] = rb3.z;
      tile_b[ob0 + 72u] = rb0.w;
      tile_b[ob0 + 73u] = rb1.w;
      tile_b[ob0 + 74u] = rb2.w;
      tile_b[ob0 + 75u] = rb3.w;
    }
  }
  if (steps > 1u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 128u <= a_rows && 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
        ra0_1 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + 16u + ((lid) & 3u) * 4u) / 4u];
        ra1_1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + 16u + ((lid + 256u) & 3u) * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(row0 + ((lid) >> 2u), 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
        ra1_1 = fetch_a(row0 + ((lid + 256u) >> 2u), 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
      }
    } else {  // stored [k][m]: 4x4 blocks
      if (lid < 128u) {  // 128 blocks
        let ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
        let ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
        if (16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0_1 = ta_in[((16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra1_1 = ta_in[((16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra2_1 = ta_in[((16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
          ra3_1 = ta_in[((16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
        } else {
          ra0_1 = fetch_a(16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
          ra1_1 = fetch_a(16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
          ra2_1 = fetch_a(16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
          ra3_1 = fetch_a(16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
        }
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 256u <= b_rows && 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0_1 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + 16u + ((lid) & 3u) * 4u) / 4u];
        rb1_1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + 16u + ((lid + 256u) & 3u) * 4u) / 4u];
        rb2_1 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + 16u + ((lid + 512u) & 3u) * 4u) / 4u];
        rb3_1 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + 16u + ((lid + 768u) & 3u) * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(col0 + ((lid) >> 2u), 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
        rb1_1 = fetch_b(col0 + ((lid + 256u) >> 2u), 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
        rb2_1 = fetch_b(col0 + ((lid + 512u) >> 2u), 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
        rb3_1 = fetch_b(col0 + ((lid + 768u) >> 2u), 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
      let bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
      if (16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
        rb0_1 = tb_in[((16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
        rb1_1 = tb_in[((16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
        rb2_1 = tb_in[((16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
        rb3_1 = tb_in[((16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
        rb1_1 = fetch_b(16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
        rb2_1 = fetch_b(16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
        rb3_1 = fetch_b(16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
      }
    }
  }
  workgroupBarrier();

  for (var s = 0u; s < steps; s += 2u) {
    // even step s: buffer 0 holds its tiles, the registers _1 step s + 1's
    if (s + 2u < steps) {
      if (!ta) {  // stored [m][k]
        if (row0 + 128u <= a_rows && (s + 2u) * 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
          ra0 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + (s + 2u) * 16u + ((lid) & 3u) * 4u) / 4u];
          ra1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
        } else {
          ra0 = fetch_a(row0 + ((lid) >> 2u), (s + 2u) * 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
          ra1 = fetch_a(row0 + ((lid + 256u) >> 2u), (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
        }
      } else {  // stored [k][m]: 4x4 blocks
        if (lid < 128u) {  // 128 blocks
          let ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
          let ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
          if ((s + 2u) * 16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
            ra0 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra1 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra2 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
            ra3 = ta_in[(((s + 2u) * 16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
          } else {
            ra0 = fetch_a((s + 2u) * 16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
            ra1 = fetch_a((s + 2u) * 16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
            ra2 = fetch_a((s + 2u) * 16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
            ra3 = fetch_a((s + 2u) * 16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
          }
        }
      }
      if (tb) {  // stored [n][k]
        if (col0 + 256u <= b_rows && (s + 2u) * 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
          rb0 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid) & 3u) * 4u) / 4u];
          rb1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
          rb2 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 512u) & 3u) * 4u) / 4u];
          rb3 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + (s + 2u) * 16u + ((lid + 768u) & 3u) * 4u) / 4u];
        } else {
          rb0 = fetch_b(col0 + ((lid) >> 2u), (s + 2u) * 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
          rb1 = fetch_b(col0 + ((lid + 256u) >> 2u), (s + 2u) * 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
          rb2 = fetch_b(col0 + ((lid + 512u) >> 2u), (s + 2u) * 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
          rb3 = fetch_b(col0 + ((lid + 768u) >> 2u), (s + 2u) * 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
        }
      } else {  // stored [k][n]: 4x4 blocks
        let br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
        let bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
        if ((s + 2u) * 16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
          rb0 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
          rb1 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
          rb2 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
          rb3 = tb_in[(((s + 2u) * 16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
        } else {
          rb0 = fetch_b((s + 2u) * 16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
          rb1 = fetch_b((s + 2u) * 16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
          rb2 = fetch_b((s + 2u) * 16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
          rb3 = fetch_b((s + 2u) * 16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
        }
      }
    }
    {  // k 0 .. 15 of the step
      var b0: subgroup_matrix_right<f16, 16, 16>;
      b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, (scol + 0u) * 24u + 0u, true, 24u);
      var b1: subgroup_matrix_right<f16, 16, 16>;
      b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, (scol + 16u) * 24u + 0u, true, 24u);
      var b2: subgroup_matrix_right<f16, 16, 16>;
      b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, (scol + 32u) * 24u + 0u, true, 24u);
      var b3: subgroup_matrix_right<f16, 16, 16>;
      b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, (scol + 48u) * 24u + 0u, true, 24u);
      var a0: subgroup_matrix_left<f16, 16, 16>;
      a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, (srow + 0u) * 24u + 0u, false, 24u);
      var a1: subgroup_matrix_left<f16, 16, 16>;
      a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, (srow + 16u) * 24u + 0u, false, 24u);
      var a2: subgroup_matrix_left<f16, 16, 16>;
      a2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, (srow + 32u) * 24u + 0u, false, 24u);
      var a3: subgroup_matrix_left<f16, 16, 16>;
      a3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, (srow + 48u) * 24u + 0u, false, 24u);
      c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
      c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
      c02 = subgroupMatrixMultiplyAccumulate(a0, b2, c02);
      c03 = subgroupMatrixMultiplyAccumulate(a0, b3, c03);
      c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
      c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
      c12 = subgroupMatrixMultiplyAccumulate(a1, b2, c12);
      c13 = subgroupMatrixMultiplyAccumulate(a1, b3, c13);
      c20 = subgroupMatrixMultiplyAccumulate(a2, b0, c20);
      c21 = subgroupMatrixMultiplyAccumulate(a2, b1, c21);
      c22 = subgroupMatrixMultiplyAccumulate(a2, b2, c22);
      c23 = subgroupMatrixMultiplyAccumulate(a2, b3, c23);
      c30 = subgroupMatrixMultiplyAccumulate(a3, b0, c30);
      c31 = subgroupMatrixMultiplyAccumulate(a3, b1, c31);
      c32 = subgroupMatrixMultiplyAccumulate(a3, b2, c32);
      c33 = subgroupMatrixMultiplyAccumulate(a3, b3, c33);
    }
    if (s + 1u < steps) {  // into buffer 1, last read in step s - 1
      if (!ta) {
        let oa0 = 3072u + ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
        tile_a[oa0] = ra0_1.x;
        tile_a[oa0 + 1u] = ra0_1.y;
        tile_a[oa0 + 2u] = ra0_1.z;
        tile_a[oa0 + 3u] = ra0_1.w;
        let oa1 = 3072u + ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
        tile_a[oa1] = ra1_1.x;
        tile_a[oa1 + 1u] = ra1_1.y;
        tile_a[oa1 + 2u] = ra1_1.z;
        tile_a[oa1 + 3u] = ra1_1.w;
      } else {
        if (lid < 128u) {
          let oa0 = 3072u + (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra1_1.x;
          tile_a[oa0 + 2u] = ra2_1.x;
          tile_a[oa0 + 3u] = ra3_1.x;
          tile_a[oa0 + 24u] = ra0_1.y;
          tile_a[oa0 + 25u] = ra1_1.y;
          tile_a[oa0 + 26u] = ra2_1.y;
          tile_a[oa0 + 27u] = ra3_1.y;
          tile_a[oa0 + 48u] = ra0_1.z;
          tile_a[oa0 + 49u] = ra1_1.z;
          tile_a[oa0 + 50u] = ra2_1.z;
          tile_a[oa0 + 51u] = ra3_1.z;
          tile_a[oa0 + 72u] = ra0_1.w;
          tile_a[oa0 + 73u] = ra1_1.w;
          tile_a[oa0 + 74u] = ra2_1.w;
          tile_a[oa0 + 75u] = ra3_1.w;
        }
      }
      if (tb) {
        let ob0 = 6144u + ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
        tile_b[ob0] = rb0_1.x;
        tile_b[ob0 + 1u] = rb0_1.y;
        tile_b[ob0 + 2u] = rb0_1.z;
        tile_b[ob0 + 3u] = rb0_1.w;
        let ob1 = 6144u + ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
        tile_b[ob1] = rb1_1.x;
        tile_b[ob1 + 1u] = rb1_1.y;
        tile_b[ob1 + 2u] = rb1_1.z;
        tile_b[ob1 + 3u] = rb1_1.w;
        let ob2 = 6144u + ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
        tile_b[ob2] = rb2_1.x;
        tile_b[ob2 + 1u] = rb2_1.y;
        tile_b[ob2 + 2u] = rb2_1.z;
        tile_b[ob2 + 3u] = rb2_1.w;
        let ob3 = 6144u + ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
        tile_b[ob3] = rb3_1.x;
        tile_b[ob3 + 1u] = rb3_1.y;
        tile_b[ob3 + 2u] = rb3_1.z;
        tile_b[ob3 + 3u] = rb3_1.w;
      } else {
        let ob0 = 6144u + (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
        tile_b[ob0] = rb0_1.x;
        tile_b[ob0 + 1u] = rb1_1.x;
        tile_b[ob0 + 2u] = rb2_1.x;
        tile_b[ob0 + 3u] = rb3_1.x;
        tile_b[ob0 + 24u] = rb0_1.y;
        tile_b[ob0 + 25u] = rb1_1.y;
        tile_b[ob0 + 26u] = rb2_1.y;
        tile_b[ob0 + 27u] = rb3_1.y;
        tile_b[ob0 + 48u] = rb0_1.z;
        tile_b[ob0 + 49u] = rb1_1.z;
        tile_b[ob0 + 50u] = rb2_1.z;
        tile_b[ob0 + 51u] = rb3_1.z;
        tile_b[ob0 + 72u] = rb0_1.w;
        tile_b[ob0 + 73u] = rb1_1.w;
        tile_b[ob0 + 74u] = rb2_1.w;
        tile_b[ob0 + 75u] = rb3_1.w;
      }
    }
    workgroupBarrier();
    if (s + 1u < steps) {  // odd step s + 1: buffer 1, the registers hold step s + 2's
      if (s + 3u < steps) {
        if (!ta) {  // stored [m][k]
          if (row0 + 128u <= a_rows && (s + 3u) * 16u + 16u <= a_ld && a_ld % 4u == 0u) {  // inside
            ra0_1 = ta_in[((row0 + ((lid) >> 2u)) * a_ld + (s + 3u) * 16u + ((lid) & 3u) * 4u) / 4u];
            ra1_1 = ta_in[((row0 + ((lid + 256u) >> 2u)) * a_ld + (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
          } else {
            ra0_1 = fetch_a(row0 + ((lid) >> 2u), (s + 3u) * 16u + ((lid) & 3u) * 4u, a_rows, a_ld);
            ra1_1 = fetch_a(row0 + ((lid + 256u) >> 2u), (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u, a_rows, a_ld);
          }
        } else {  // stored [k][m]: 4x4 blocks
          if (lid < 128u) {  // 128 blocks
            let ar0 = (((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u);
            let ak0 = ((lid) >> 7u) * 4u + ((lid) & 3u);
            if ((s + 3u) * 16u + 16u <= a_rows && row0 + 128u <= a_ld && a_ld % 4u == 0u) {  // inside
              ra0_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 0u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra1_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 1u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra2_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 2u) * a_ld + row0 + ar0 * 4u) / 4u];
              ra3_1 = ta_in[(((s + 3u) * 16u + ak0 * 4u + 3u) * a_ld + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld);
              ra1_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld);
              ra2_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld);
              ra3_1 = fetch_a((s + 3u) * 16u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld);
            }
          }
        }
        if (tb) {  // stored [n][k]
          if (col0 + 256u <= b_rows && (s + 3u) * 16u + 16u <= b_ld && b_ld % 4u == 0u) {  // inside
            rb0_1 = tb_in[((col0 + ((lid) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid) & 3u) * 4u) / 4u];
            rb1_1 = tb_in[((col0 + ((lid + 256u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u) / 4u];
            rb2_1 = tb_in[((col0 + ((lid + 512u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 512u) & 3u) * 4u) / 4u];
            rb3_1 = tb_in[((col0 + ((lid + 768u) >> 2u)) * b_ld + (s + 3u) * 16u + ((lid + 768u) & 3u) * 4u) / 4u];
          } else {
            rb0_1 = fetch_b(col0 + ((lid) >> 2u), (s + 3u) * 16u + ((lid) & 3u) * 4u, b_rows, b_ld);
            rb1_1 = fetch_b(col0 + ((lid + 256u) >> 2u), (s + 3u) * 16u + ((lid + 256u) & 3u) * 4u, b_rows, b_ld);
            rb2_1 = fetch_b(col0 + ((lid + 512u) >> 2u), (s + 3u) * 16u + ((lid + 512u) & 3u) * 4u, b_rows, b_ld);
            rb3_1 = fetch_b(col0 + ((lid + 768u) >> 2u), (s + 3u) * 16u + ((lid + 768u) & 3u) * 4u, b_rows, b_ld);
          }
        } else {  // stored [k][n]: 4x4 blocks
          let br0 = (((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u);
          let bk0 = ((lid) >> 8u) * 4u + ((lid) & 3u);
          if ((s + 3u) * 16u + 16u <= b_rows && col0 + 256u <= b_ld && b_ld % 4u == 0u) {  // inside
            rb0_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 0u) * b_ld + col0 + br0 * 4u) / 4u];
            rb1_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 1u) * b_ld + col0 + br0 * 4u) / 4u];
            rb2_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 2u) * b_ld + col0 + br0 * 4u) / 4u];
            rb3_1 = tb_in[(((s + 3u) * 16u + bk0 * 4u + 3u) * b_ld + col0 + br0 * 4u) / 4u];
          } else {
            rb0_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld);
            rb1_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld);
            rb2_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld);
            rb3_1 = fetch_b((s + 3u) * 16u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld);
          }
        }
      }
      {  // k 0 .. 15 of the step
        var b0: subgroup_matrix_right<f16, 16, 16>;
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, 6144u + (scol + 0u) * 24u + 0u, true, 24u);
        var b1: subgroup_matrix_right<f16, 16, 16>;
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, 6144u + (scol + 16u) * 24u + 0u, true, 24u);
        var b2: subgroup_matrix_right<f16, 16, 16>;
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, 6144u + (scol + 32u) * 24u + 0u, true, 24u);
        var b3: subgroup_matrix_right<f16, 16, 16>;
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, 6144u + (scol + 48u) * 24u + 0u, true, 24u);
        var a0: subgroup_matrix_left<f16, 16, 16>;
        a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, 3072u + (srow + 0u) * 24u + 0u, false, 24u);
        var a1: subgroup_matrix_left<f16, 16, 16>;
        a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, 3072u + (srow + 16u) * 24u + 0u, false, 24u);
        var a2: subgroup_matrix_left<f16, 16, 16>;
        a2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, 3072u + (srow + 32u) * 24u + 0u, false, 24u);
        var a3: subgroup_matrix_left<f16, 16, 16>;
        a3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, 3072u + (srow + 48u) * 24u + 0u, false, 24u);
        c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
        c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
        c02 = subgroupMatrixMultiplyAccumulate(a0, b2, c02);
        c03 = subgroupMatrixMultiplyAccumulate(a0, b3, c03);
        c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
        c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        c12 = subgroupMatrixMultiplyAccumulate(a1, b2, c12);
        c13 = subgroupMatrixMultiplyAccumulate(a1, b3, c13);
        c20 = subgroupMatrixMultiplyAccumulate(a2, b0, c20);
        c21 = subgroupMatrixMultiplyAccumulate(a2, b1, c21);
        c22 = subgroupMatrixMultiplyAccumulate(a2, b2, c22);
        c23 = subgroupMatrixMultiplyAccumulate(a2, b3, c23);
        c30 = subgroupMatrixMultiplyAccumulate(a3, b0, c30);
        c31 = subgroupMatrixMultiplyAccumulate(a3, b1, c31);
        c32 = subgroupMatrixMultiplyAccumulate(a3, b2, c32);
        c33 = subgroupMatrixMultiplyAccumulate(a3, b3, c33);
      }
      if (s + 2u < steps) {  // into buffer 0, last read in step s
        if (!ta) {
          let oa0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
          tile_a[oa0] = ra0.x;
          tile_a[oa0 + 1u] = ra0.y;
          tile_a[oa0 + 2u] = ra0.z;
          tile_a[oa0 + 3u] = ra0.w;
          let oa1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
          tile_a[oa1] = ra1.x;
          tile_a[oa1 + 1u] = ra1.y;
          tile_a[oa1 + 2u] = ra1.z;
          tile_a[oa1 + 3u] = ra1.w;
        } else {
          if (lid < 128u) {
            let oa0 = (((((lid) >> 5u) & 3u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 7u) * 4u + ((lid) & 3u)) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra1.x;
            tile_a[oa0 + 2u] = ra2.x;
            tile_a[oa0 + 3u] = ra3.x;
            tile_a[oa0 + 24u] = ra0.y;
            tile_a[oa0 + 25u] = ra1.y;
            tile_a[oa0 + 26u] = ra2.y;
            tile_a[oa0 + 27u] = ra3.y;
            tile_a[oa0 + 48u] = ra0.z;
            tile_a[oa0 + 49u] = ra1.z;
            tile_a[oa0 + 50u] = ra2.z;
            tile_a[oa0 + 51u] = ra3.z;
            tile_a[oa0 + 72u] = ra0.w;
            tile_a[oa0 + 73u] = ra1.w;
            tile_a[oa0 + 74u] = ra2.w;
            tile_a[oa0 + 75u] = ra3.w;
          }
        }
        if (tb) {
          let ob0 = ((lid) >> 2u) * 24u + ((lid) & 3u) * 4u;
          tile_b[ob0] = rb0.x;
          tile_b[ob0 + 1u] = rb0.y;
          tile_b[ob0 + 2u] = rb0.z;
          tile_b[ob0 + 3u] = rb0.w;
          let ob1 = ((lid + 256u) >> 2u) * 24u + ((lid + 256u) & 3u) * 4u;
          tile_b[ob1] = rb1.x;
          tile_b[ob1 + 1u] = rb1.y;
          tile_b[ob1 + 2u] = rb1.z;
          tile_b[ob1 + 3u] = rb1.w;
          let ob2 = ((lid + 512u) >> 2u) * 24u + ((lid + 512u) & 3u) * 4u;
          tile_b[ob2] = rb2.x;
          tile_b[ob2 + 1u] = rb2.y;
          tile_b[ob2 + 2u] = rb2.z;
          tile_b[ob2 + 3u] = rb2.w;
          let ob3 = ((lid + 768u) >> 2u) * 24u + ((lid + 768u) & 3u) * 4u;
          tile_b[ob3] = rb3.x;
          tile_b[ob3 + 1u] = rb3.y;
          tile_b[ob3 + 2u] = rb3.z;
          tile_b[ob3 + 3u] = rb3.w;
        } else {
          let ob0 = (((((lid) >> 5u) & 7u) * 8u + (((lid) >> 2u) & 7u)) * 4u) * 24u + (((lid) >> 8u) * 4u + ((lid) & 3u)) * 4u;
          tile_b[ob0] = rb0.x;
          tile_b[ob0 + 1u] = rb1.x;
          tile_b[ob0 + 2u] = rb2.x;
          tile_b[ob0 + 3u] = rb3.x;
          tile_b[ob0 + 24u] = rb0.y;
          tile_b[ob0 + 25u] = rb1.y;
          tile_b[ob0 + 26u] = rb2.y;
          tile_b[ob0 + 27u] = rb3.y;
          tile_b[ob0 + 48u] = rb0.z;
          tile_b[ob0 + 49u] = rb1.z;
          tile_b[ob0 + 50u] = rb2.z;
          tile_b[ob0 + 51u] = rb3.z;
          tile_b[ob0 + 72u] = rb0.w;
          tile_b[ob0 + 73u] = rb1.w;
          tile_b[ob0 + 74u] = rb2.w;
          tile_b[ob0 + 75u] = rb3.w;
        }
      }
      workgroupBarrier();
    }
  }

  if (direct_c) {
    subgroupMatrixStore(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 0u, c00, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 16u, c01, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 32u, c02, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 0u) * N + col0 + scol + 48u, c03, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 0u, c10, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 16u, c11, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 32u, c12, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 16u) * N + col0 + scol + 48u, c13, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 0u, c20, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 16u, c21, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 32u, c22, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 32u) * N + col0 + scol + 48u, c23, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 0u, c30, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 16u, c31, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 32u, c32, false, N);
    subgroupMatrixStore(&tc_out, (row0 + srow + 48u) * N + col0 + scol + 48u, c33, false, N);
  } else {
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c00, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c01, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c02, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 32u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c03, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 48u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c10, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c11, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c12, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 32u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c13, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 48u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c20, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 0u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c21, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 16u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c22, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 32u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c23, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 32u, col0 + scol + 48u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c30, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 0u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c31, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 16u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c32, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 32u, M, N);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c33, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 48u, col0 + scol + 48u, M, N);
  }
}
