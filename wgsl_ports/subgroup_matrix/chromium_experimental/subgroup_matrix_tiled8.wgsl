// wgslvk's own WGSL (not from the seeds): a tiled f16-input, f32-accumulating matmul on Dawn's
// chromium-experimental-subgroup-matrix, written out as straight-line code by gen_tiled.py (no
// arrays of matrices: an array of result matrices indexed in loops went to local memory on
// NVIDIA). Same product and flags as sgmm_f16 (subgroup_matrix.wgsl): C[M,N] (+)= op(A)[M,K]
// op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]), ACCUMULATE 8.
// One workgroup = 8 subgroups of 32 (workgroup (32, 8, 1): Dawn's rule that x is a multiple of
// the subgroup size makes local_invocation_id.y the subgroup's index) computes a 128x128 block of
// C; each subgroup owns a 32x64 part as 2x4 16x16 result matrices (each left matrix it loads is
// used 4 times, each right one twice).
// K advances 32 at a time: all invocations copy the next A and B tiles (128x32 and 32x128 f16, as
// stored, 8-byte vec4<f16> loads) into registers while the subgroups multiply the current ones
// out of workgroup memory, then store them into the other half of a double buffer: one barrier
// per K step. Rows of the tiles are padded by 8 f16 (16 bytes) so the 16-byte rows a subgroup
// matrix load reads fall in distinct banks. Zeros are staged outside the operands (edge blocks,
// the last partial K step, strides that are not multiples of 4 elements: element by element
// there), so every block runs the same code; C is loaded and stored as result matrices straight
// from the buffer when the block is inside C and N is a multiple of 4, else element by element
// through workgroup memory, inside its bounds. Blocks are visited in groups of 8 block rows so
// that the blocks running together share their A rows and B columns in the L2 cache.
// Workgroup memory: 49,152 bytes (2 x 2 x 10,240 for the tiles, 8,192 for C at the edges): more
// than WebGPU's default maxComputeWorkgroupStorageSize (16,384); the device must be requested
// with it (Dawn on the H200 offers 49,152 and accepts it).
// A and B are read as vec4<f16>: their buffers hold whole vec4s (pad with zeros to a multiple of
// 8 bytes). Dispatch (ceil(N / 128), ceil(M / 128), 1). Port: sgmm_f16_tiled8.comp (README.md).
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
const TILE: u32 = 5120u;  // one buffer: [128][32 + 8] or [32][128 + 8] f16, as stored

var<workgroup> tile_a: array<f16, 10240>;  // two A tiles
var<workgroup> tile_b: array<f16, 10240>;  // two B tiles
var<workgroup> tile_c: array<f32, 2048>;  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.
fn fetch_a(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return ta_in[(row * ld + col) / 4u];
  }
  var v = vec4<f16>();
  for (var e = 0u; e < 4u; e++) {
    if (row < rows && col + e < ld) {
      let i = row * ld + col + e;
      v[e] = ta_in[i / 4u][i % 4u];
    }
  }
  return v;
}

fn fetch_b(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {
  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {
    return tb_in[(row * ld + col) / 4u];
  }
  var v = vec4<f16>();
  for (var e = 0u; e < 4u; e++) {
    if (row < rows && col + e < ld) {
      let i = row * ld + col + e;
      v[e] = tb_in[i / 4u][i % 4u];
    }
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
fn sgmm_f16_tiled8(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(local_invocation_id) lxy: vec3<u32>,
                   @builtin(local_invocation_index) lid: u32) {
  let M = tdims.x;
  let N = tdims.y;
  let K = tdims.z;
  let flags = tdims.w;
  let ta = (flags & TRANS_A) != 0u;
  let tb = (flags & TRANS_B) != 0u;

  // The block: dispatch order walks 8 block rows per block column.
  let gx = (N + 127u) / 128u;
  let gy = (M + 127u) / 128u;
  let pid = wid.y * gx + wid.x;
  let grow = (pid / (8u * gx)) * 8u;
  let rows_g = min(gy - grow, 8u);
  let inner = pid % (8u * gx);
  let row0 = (grow + inner % rows_g) * 128u;
  let col0 = (inner / rows_g) * 128u;

  let sg = lxy.y;  // this subgroup's 32x64 part of the block
  let srow = (sg / 2u) * 32u;
  let scol = (sg % 2u) * 64u;
  let cbase = sg * 256u;  // its C tile in workgroup memory
  let direct_c = row0 + 128u <= M && col0 + 128u <= N && N % 4u == 0u;

  // The copy: the stored tile is [rows][cols] with 8 or 32 vec4s per row; invocation lid copies
  // vec4s lid + 256 i, i < 4.
  let a_shift = select(3u, 5u, ta);
  let a_stride = select(40u, 136u, ta);
  let a_rows = select(M, K, ta);
  let a_ld = select(K, M, ta);
  let b_shift = select(5u, 3u, tb);
  let b_stride = select(136u, 40u, tb);
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
    }
  }

  let steps = (K + 31u) / 32u;
  var ra0: vec4<f16>;
  var ra1: vec4<f16>;
  var ra2: vec4<f16>;
  var ra3: vec4<f16>;
  var rb0: vec4<f16>;
  var rb1: vec4<f16>;
  var rb2: vec4<f16>;
  var rb3: vec4<f16>;
  if (steps > 0u) {  // the first K step's tiles
    ra0 = fetch_a(select(row0, 0u, ta) + ((lid) >> a_shift), select(0u, row0, ta) + (((lid) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb0 = fetch_b(select(0u, col0, tb) + ((lid) >> b_shift), select(col0, 0u, tb) + (((lid) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra1 = fetch_a(select(row0, 0u, ta) + ((lid + 256u) >> a_shift), select(0u, row0, ta) + (((lid + 256u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb1 = fetch_b(select(0u, col0, tb) + ((lid + 256u) >> b_shift), select(col0, 0u, tb) + (((lid + 256u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra2 = fetch_a(select(row0, 0u, ta) + ((lid + 512u) >> a_shift), select(0u, row0, ta) + (((lid + 512u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb2 = fetch_b(select(0u, col0, tb) + ((lid + 512u) >> b_shift), select(col0, 0u, tb) + (((lid + 512u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    ra3 = fetch_a(select(row0, 0u, ta) + ((lid + 768u) >> a_shift), select(0u, row0, ta) + (((lid + 768u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
    rb3 = fetch_b(select(0u, col0, tb) + ((lid + 768u) >> b_shift), select(col0, 0u, tb) + (((lid + 768u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    let oa0 = ((lid) >> a_shift) * a_stride + ((lid) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa0] = ra0.x;
    tile_a[oa0 + 1u] = ra0.y;
    tile_a[oa0 + 2u] = ra0.z;
    tile_a[oa0 + 3u] = ra0.w;
    let ob0 = ((lid) >> b_shift) * b_stride + ((lid) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob0] = rb0.x;
    tile_b[ob0 + 1u] = rb0.y;
    tile_b[ob0 + 2u] = rb0.z;
    tile_b[ob0 + 3u] = rb0.w;
    let oa1 = ((lid + 256u) >> a_shift) * a_stride + ((lid + 256u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa1] = ra1.x;
    tile_a[oa1 + 1u] = ra1.y;
    tile_a[oa1 + 2u] = ra1.z;
    tile_a[oa1 + 3u] = ra1.w;
    let ob1 = ((lid + 256u) >> b_shift) * b_stride + ((lid + 256u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob1] = rb1.x;
    tile_b[ob1 + 1u] = rb1.y;
    tile_b[ob1 + 2u] = rb1.z;
    tile_b[ob1 + 3u] = rb1.w;
    let oa2 = ((lid + 512u) >> a_shift) * a_stride + ((lid + 512u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa2] = ra2.x;
    tile_a[oa2 + 1u] = ra2.y;
    tile_a[oa2 + 2u] = ra2.z;
    tile_a[oa2 + 3u] = ra2.w;
    let ob2 = ((lid + 512u) >> b_shift) * b_stride + ((lid + 512u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob2] = rb2.x;
    tile_b[ob2 + 1u] = rb2.y;
    tile_b[ob2 + 2u] = rb2.z;
    tile_b[ob2 + 3u] = rb2.w;
    let oa3 = ((lid + 768u) >> a_shift) * a_stride + ((lid + 768u) & ((1u << a_shift) - 1u)) * 4u;
    tile_a[oa3] = ra3.x;
    tile_a[oa3 + 1u] = ra3.y;
    tile_a[oa3 + 2u] = ra3.z;
    tile_a[oa3 + 3u] = ra3.w;
    let ob3 = ((lid + 768u) >> b_shift) * b_stride + ((lid + 768u) & ((1u << b_shift) - 1u)) * 4u;
    tile_b[ob3] = rb3.x;
    tile_b[ob3 + 1u] = rb3.y;
    tile_b[ob3 + 2u] = rb3.z;
    tile_b[ob3 + 3u] = rb3.w;
  }
  workgroupBarrier();

  for (var s = 0u; s < steps; s++) {
    let cur = (s % 2u) * TILE;
    let nxt = TILE - cur;
    let more = s + 1u < steps;
    if (more) {  // the next K step's tiles into registers
      let k0 = (s + 1u) * 32u;
      ra0 = fetch_a(select(row0, k0, ta) + ((lid) >> a_shift), select(k0, row0, ta) + (((lid) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb0 = fetch_b(select(k0, col0, tb) + ((lid) >> b_shift), select(col0, k0, tb) + (((lid) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra1 = fetch_a(select(row0, k0, ta) + ((lid + 256u) >> a_shift), select(k0, row0, ta) + (((lid + 256u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb1 = fetch_b(select(k0, col0, tb) + ((lid + 256u) >> b_shift), select(col0, k0, tb) + (((lid + 256u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra2 = fetch_a(select(row0, k0, ta) + ((lid + 512u) >> a_shift), select(k0, row0, ta) + (((lid + 512u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb2 = fetch_b(select(k0, col0, tb) + ((lid + 512u) >> b_shift), select(col0, k0, tb) + (((lid + 512u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
      ra3 = fetch_a(select(row0, k0, ta) + ((lid + 768u) >> a_shift), select(k0, row0, ta) + (((lid + 768u) & ((1u << a_shift) - 1u)) * 4u), a_rows, a_ld);
      rb3 = fetch_b(select(k0, col0, tb) + ((lid + 768u) >> b_shift), select(col0, k0, tb) + (((lid + 768u) & ((1u << b_shift) - 1u)) * 4u), b_rows, b_ld);
    }
    {  // k 0 .. 15 of the step
      var b0: subgroup_matrix_right<f16, 16, 16>;
      var b1: subgroup_matrix_right<f16, 16, 16>;
      var b2: subgroup_matrix_right<f16, 16, 16>;
      var b3: subgroup_matrix_right<f16, 16, 16>;
      if (tb) {  // [n][k]: column-major
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 0u) * 40u + 0u, true, 40u);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 16u) * 40u + 0u, true, 40u);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 32u) * 40u + 0u, true, 40u);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 48u) * 40u + 0u, true, 40u);
      } else {  // [k][n]
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 0u + scol + 0u, false, 136u);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 0u + scol + 16u, false, 136u);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 0u + scol + 32u, false, 136u);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 0u + scol + 48u, false, 136u);
      }
      var a: subgroup_matrix_left<f16, 16, 16>;
      if (ta) {  // [k][m]: column-major
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + 0u + srow + 0u, true, 136u);
      } else {  // [m][k]
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + (srow + 0u) * 40u + 0u, false, 40u);
      }
      c00 = subgroupMatrixMultiplyAccumulate(a, b0, c00);
      c01 = subgroupMatrixMultiplyAccumulate(a, b1, c01);
      c02 = subgroupMatrixMultiplyAccumulate(a, b2, c02);
      c03 = subgroupMatrixMultiplyAccumulate(a, b3, c03);
      if (ta) {  // [k][m]: column-major
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + 0u + srow + 16u, true, 136u);
      } else {  // [m][k]
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + (srow + 16u) * 40u + 0u, false, 40u);
      }
      c10 = subgroupMatrixMultiplyAccumulate(a, b0, c10);
      c11 = subgroupMatrixMultiplyAccumulate(a, b1, c11);
      c12 = subgroupMatrixMultiplyAccumulate(a, b2, c12);
      c13 = subgroupMatrixMultiplyAccumulate(a, b3, c13);
    }
    {  // k 16 .. 31 of the step
      var b0: subgroup_matrix_right<f16, 16, 16>;
      var b1: subgroup_matrix_right<f16, 16, 16>;
      var b2: subgroup_matrix_right<f16, 16, 16>;
      var b3: subgroup_matrix_right<f16, 16, 16>;
      if (tb) {  // [n][k]: column-major
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 0u) * 40u + 16u, true, 40u);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 16u) * 40u + 16u, true, 40u);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 32u) * 40u + 16u, true, 40u);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + (scol + 48u) * 40u + 16u, true, 40u);
      } else {  // [k][n]
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 2176u + scol + 0u, false, 136u);
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 2176u + scol + 16u, false, 136u);
        b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 2176u + scol + 32u, false, 136u);
        b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur + 2176u + scol + 48u, false, 136u);
      }
      var a: subgroup_matrix_left<f16, 16, 16>;
      if (ta) {  // [k][m]: column-major
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + 2176u + srow + 0u, true, 136u);
      } else {  // [m][k]
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + (srow + 0u) * 40u + 16u, false, 40u);
      }
      c00 = subgroupMatrixMultiplyAccumulate(a, b0, c00);
      c01 = subgroupMatrixMultiplyAccumulate(a, b1, c01);
      c02 = subgroupMatrixMultiplyAccumulate(a, b2, c02);
      c03 = subgroupMatrixMultiplyAccumulate(a, b3, c03);
      if (ta) {  // [k][m]: column-major
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + 2176u + srow + 16u, true, 136u);
      } else {  // [m][k]
        a = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur + (srow + 16u) * 40u + 16u, false, 40u);
      }
      c10 = subgroupMatrixMultiplyAccumulate(a, b0, c10);
      c11 = subgroupMatrixMultiplyAccumulate(a, b1, c11);
      c12 = subgroupMatrixMultiplyAccumulate(a, b2, c12);
      c13 = subgroupMatrixMultiplyAccumulate(a, b3, c13);
    }
    if (more) {  // into the other buffer, last read in the step before this one
      let oa0 = nxt + ((lid) >> a_shift) * a_stride + ((lid) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      let ob0 = nxt + ((lid) >> b_shift) * b_stride + ((lid) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      let oa1 = nxt + ((lid + 256u) >> a_shift) * a_stride + ((lid + 256u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
      let ob1 = nxt + ((lid + 256u) >> b_shift) * b_stride + ((lid + 256u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      let oa2 = nxt + ((lid + 512u) >> a_shift) * a_stride + ((lid + 512u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa2] = ra2.x;
      tile_a[oa2 + 1u] = ra2.y;
      tile_a[oa2 + 2u] = ra2.z;
      tile_a[oa2 + 3u] = ra2.w;
      let ob2 = nxt + ((lid + 512u) >> b_shift) * b_stride + ((lid + 512u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      let oa3 = nxt + ((lid + 768u) >> a_shift) * a_stride + ((lid + 768u) & ((1u << a_shift) - 1u)) * 4u;
      tile_a[oa3] = ra3.x;
      tile_a[oa3 + 1u] = ra3.y;
      tile_a[oa3 + 2u] = ra3.z;
      tile_a[oa3 + 3u] = ra3.w;
      let ob3 = nxt + ((lid + 768u) >> b_shift) * b_stride + ((lid + 768u) & ((1u << b_shift) - 1u)) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    }
    workgroupBarrier();
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
  }
}
