// wgslvk's own WGSL (not from the seeds): sgmm_f16_batched, sgmm_f16_tiled4_d4's product, flags
// and code (wgsl_ports/subgroup_matrix/README.md, "sgmm_f16_batched"), written out by gen_tiled.py,
// on a batch of products: workgroup z computes product z, whose A, B and C start at offsets and
// have row strides of their own (the uniform BatchDims below), so a product can read a head's
// columns of a wider matrix in place (attention's Q, K and V inside the [tokens][3 d] qkv rows).
// C[M,N] (+)= op(A)[M,K] op(B)[K,N] per product, row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2
// (B stored [N, K]), ACCUMULATE 8. Workgroup (32, 4, 1) = 4 subgroups on a 64x64 block of C (each
// 32x32 as 2x2 result matrices); tiles fetched four K steps ahead; the vec4<f16> fast path where a
// tile is inside its operand and the operand's offset and row stride are multiples of 4; C as
// result matrices straight from/to the buffer where the block is inside C and C's offset and row
// stride are multiples of 4, else through workgroup memory inside its bounds. For each result
// matrix the multiply-adds are sgmm_f16_tiled4_d4's, in the same order (the same bits as that kernel
// on each product alone). A and B are read as vec4<f16>: their buffers hold whole vec4s.
// Workgroup memory 24,576 bytes: the device must be requested with it (over WebGPU's default
// 16,384). Dispatch (ceil(N / 64), ceil(M / 64), products). Port: sgmm_f16_batched.comp.
enable f16;
enable chromium_experimental_subgroup_matrix;
// The subgroup's offsets derive from local_invocation_id.y, uniform in each subgroup by the
// workgroup-size rule above, which Tint's uniformity analysis does not know.
diagnostic(off, chromium.subgroup_matrix_uniformity);

@group(0) @binding(0) var<storage, read> ta_in: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> tb_in: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> tc_out: array<f32>;
// The batch: product z = o * ld.w + i (o outer, i inner) reads A from element off.x + o * ab.x +
// i * ab.y, B from off.y + o * ab.z + i * ab.w, and writes C from off.z + o * cb.x + i * cb.y, each
// stored row r of them ld.x / ld.y / ld.z elements after row r - 1 (row lengths as sgmm_f16's: K or
// M for A, N or K for B, N for C).
struct BatchDims {
  mnkf: vec4<u32>,  // (M, N, K, flags), sgmm_f16's
  ld: vec4<u32>,    // (A's, B's and C's row strides, the batch's inner count)
  ab: vec4<u32>,    // (A's outer and inner batch strides, B's outer and inner)
  cb: vec4<u32>,    // (C's outer and inner batch strides, 0, 0)
  off: vec4<u32>,   // (A's, B's and C's first element, 0)
}
@group(0) @binding(3) var<uniform> tdims: BatchDims;

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ACCUMULATE: u32 = 8u;

var<workgroup> tile_a: array<f16, 5120>;  // 2 x A [64][32 + 8]
var<workgroup> tile_b: array<f16, 5120>;  // 2 x B [64][32 + 8] (n, k)
var<workgroup> tile_c: array<f32, 1024>;  // one [16][16] C tile per subgroup (edge blocks)

// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix whose row r starts at
// element base + r * rs of the buffer, zeros outside it.
fn fetch_a(base: u32, row: u32, col: u32, rows: u32, ld: u32, rs: u32) -> vec4<f16> {
  let i = base + row * rs + col;
  if (row < rows && col + 4u <= ld && i % 4u == 0u) {
    return ta_in[i / 4u];
  }
  var v = vec4<f16>();
  if (row < rows && col + 0u < ld) {
    let i0 = i + 0u;
    v.x = ta_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    let i1 = i + 1u;
    v.y = ta_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    let i2 = i + 2u;
    v.z = ta_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    let i3 = i + 3u;
    v.w = ta_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

fn fetch_b(base: u32, row: u32, col: u32, rows: u32, ld: u32, rs: u32) -> vec4<f16> {
  let i = base + row * rs + col;
  if (row < rows && col + 4u <= ld && i % 4u == 0u) {
    return tb_in[i / 4u];
  }
  var v = vec4<f16>();
  if (row < rows && col + 0u < ld) {
    let i0 = i + 0u;
    v.x = tb_in[i0 / 4u][i0 % 4u];
  }
  if (row < rows && col + 1u < ld) {
    let i1 = i + 1u;
    v.y = tb_in[i1 / 4u][i1 % 4u];
  }
  if (row < rows && col + 2u < ld) {
    let i2 = i + 2u;
    v.z = tb_in[i2 / 4u][i2 % 4u];
  }
  if (row < rows && col + 3u < ld) {
    let i3 = i + 3u;
    v.w = tb_in[i3 / 4u][i3 % 4u];
  }
  return v;
}

// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.
fn c_in(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32, cb: u32, ldc: u32) {
  for (var e = lx; e < 256u; e += 32u) {
    let gr = r + e / 16u;
    let gc = c + e % 16u;
    tile_c[base + e] = 0.0;
    if (gr < M && gc < N) {
      tile_c[base + e] = tc_out[cb + gr * ldc + gc];
    }
  }
}

fn c_out(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32, cb: u32, ldc: u32) {
  for (var e = lx; e < 256u; e += 32u) {
    let gr = r + e / 16u;
    let gc = c + e % 16u;
    if (gr < M && gc < N) {
      tc_out[cb + gr * ldc + gc] = tile_c[base + e];
    }
  }
}

@compute @workgroup_size(32, 4, 1)
fn sgmm_f16_batched(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(local_invocation_id) lxy: vec3<u32>,
                    @builtin(local_invocation_index) lid: u32) {
  let M = tdims.mnkf.x;
  let N = tdims.mnkf.y;
  let K = tdims.mnkf.z;
  let flags = tdims.mnkf.w;
  let ta = (flags & TRANS_A) != 0u;
  let tb = (flags & TRANS_B) != 0u;

  // This workgroup's product of the batch: z = outer index * inner count + inner index.
  let bo = wid.z / tdims.ld.w;
  let bi = wid.z % tdims.ld.w;
  let a_base = tdims.off.x + bo * tdims.ab.x + bi * tdims.ab.y;
  let b_base = tdims.off.y + bo * tdims.ab.z + bi * tdims.ab.w;
  let c_base = tdims.off.z + bo * tdims.cb.x + bi * tdims.cb.y;
  let a_rs = tdims.ld.x;
  let b_rs = tdims.ld.y;
  let ldc = tdims.ld.z;
  let a_al = a_rs % 4u == 0u && a_base % 4u == 0u;  // rows of whole vec4<f16>s
  let b_al = b_rs % 4u == 0u && b_base % 4u == 0u;

  // The block: dispatch order walks 8 block rows per block column.
  let gx = (N + 63u) / 64u;
  let gy = (M + 63u) / 64u;
  let pid = wid.y * gx + wid.x;
  let grow = (pid / (8u * gx)) * 8u;
  let rows_g = min(gy - grow, 8u);
  let inner = pid % (8u * gx);
  let row0 = (grow + inner % rows_g) * 64u;
  let col0 = (inner / rows_g) * 64u;

  let sg = lxy.y;  // this subgroup's 32x32 part of the block
  let srow = (sg / 2u) * 32u;
  let scol = (sg % 2u) * 32u;
  let cbase = sg * 256u;  // its C tile in workgroup memory
  let direct_c = row0 + 64u <= M && col0 + 64u <= N && ldc % 4u == 0u && c_base % 4u == 0u;
  let a_rows = select(M, K, ta);
  let a_ld = select(K, M, ta);
  let b_rows = select(K, N, tb);
  let b_ld = select(N, K, tb);

  // The subgroup's result matrices, named (an array indexed in loops went to local memory).
  var c00: subgroup_matrix_result<f32, 16, 16>;
  var c01: subgroup_matrix_result<f32, 16, 16>;
  var c10: subgroup_matrix_result<f32, 16, 16>;
  var c11: subgroup_matrix_result<f32, 16, 16>;
  if ((flags & ACCUMULATE) != 0u) {
    if (direct_c) {
      c00 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 0u, false, ldc);
      c01 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 16u, false, ldc);
      c10 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 0u, false, ldc);
      c11 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 16u, false, ldc);
    } else {
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N, c_base, ldc);
      workgroupBarrier();
      c00 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N, c_base, ldc);
      workgroupBarrier();
      c01 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N, c_base, ldc);
      workgroupBarrier();
      c10 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
      workgroupBarrier();
      c_in(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N, c_base, ldc);
      workgroupBarrier();
      c11 = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 16>>(&tile_c, cbase, false, 16u);
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
  var ra0_1: vec4<f16>;
  var ra1_1: vec4<f16>;
  var ra2_1: vec4<f16>;
  var ra3_1: vec4<f16>;
  var rb0_1: vec4<f16>;
  var rb1_1: vec4<f16>;
  var rb2_1: vec4<f16>;
  var rb3_1: vec4<f16>;
  var ra0_2: vec4<f16>;
  var ra1_2: vec4<f16>;
  var ra2_2: vec4<f16>;
  var ra3_2: vec4<f16>;
  var rb0_2: vec4<f16>;
  var rb1_2: vec4<f16>;
  var rb2_2: vec4<f16>;
  var rb3_2: vec4<f16>;
  var ra0_3: vec4<f16>;
  var ra1_3: vec4<f16>;
  var ra2_3: vec4<f16>;
  var ra3_3: vec4<f16>;
  var rb0_3: vec4<f16>;
  var rb1_3: vec4<f16>;
  var rb2_3: vec4<f16>;
  var rb3_3: vec4<f16>;
  // Tiles s + 4 are fetched into registers while step s multiplies, and stored into
  // workgroup memory after step s + 3 has multiplied.
  if (steps > 0u) {  // the first K step's tiles, and the next ones' into the other registers
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 0u + 32u <= a_ld && a_al) {  // inside
        ra0 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 0u + ((lid) & 7u) * 4u) / 4u];
        ra1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 0u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 0u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 0u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0 = fetch_a(a_base, row0 + ((lid) >> 3u), 0u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 0u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 0u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 0u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (0u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0 = ta_in[(a_base + (0u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1 = ta_in[(a_base + (0u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2 = ta_in[(a_base + (0u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3 = ta_in[(a_base + (0u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0 = fetch_a(a_base, 0u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1 = fetch_a(a_base, 0u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2 = fetch_a(a_base, 0u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3 = fetch_a(a_base, 0u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 0u + 32u <= b_ld && b_al) {  // inside
        rb0 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 0u + ((lid) & 7u) * 4u) / 4u];
        rb1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 0u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 0u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 0u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0 = fetch_b(b_base, col0 + ((lid) >> 3u), 0u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 0u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 0u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 0u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (0u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0 = tb_in[(b_base + (0u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1 = tb_in[(b_base + (0u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2 = tb_in[(b_base + (0u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3 = tb_in[(b_base + (0u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0 = fetch_b(b_base, 0u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1 = fetch_b(b_base, 0u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2 = fetch_b(b_base, 0u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3 = fetch_b(b_base, 0u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
    if (!ta) {
      let oa0 = ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra0.y;
      tile_a[oa0 + 2u] = ra0.z;
      tile_a[oa0 + 3u] = ra0.w;
      let oa1 = ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
      tile_a[oa1] = ra1.x;
      tile_a[oa1 + 1u] = ra1.y;
      tile_a[oa1 + 2u] = ra1.z;
      tile_a[oa1 + 3u] = ra1.w;
      let oa2 = ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
      tile_a[oa2] = ra2.x;
      tile_a[oa2 + 1u] = ra2.y;
      tile_a[oa2 + 2u] = ra2.z;
      tile_a[oa2 + 3u] = ra2.w;
      let oa3 = ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
      tile_a[oa3] = ra3.x;
      tile_a[oa3 + 1u] = ra3.y;
      tile_a[oa3 + 2u] = ra3.z;
      tile_a[oa3 + 3u] = ra3.w;
    } else {
      let oa0 = (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
      tile_a[oa0] = ra0.x;
      tile_a[oa0 + 1u] = ra1.x;
      tile_a[oa0 + 2u] = ra2.x;
      tile_a[oa0 + 3u] = ra3.x;
      tile_a[oa0 + 40u] = ra0.y;
      tile_a[oa0 + 41u] = ra1.y;
      tile_a[oa0 + 42u] = ra2.y;
      tile_a[oa0 + 43u] = ra3.y;
      tile_a[oa0 + 80u] = ra0.z;
      tile_a[oa0 + 81u] = ra1.z;
      tile_a[oa0 + 82u] = ra2.z;
      tile_a[oa0 + 83u] = ra3.z;
      tile_a[oa0 + 120u] = ra0.w;
      tile_a[oa0 + 121u] = ra1.w;
      tile_a[oa0 + 122u] = ra2.w;
      tile_a[oa0 + 123u] = ra3.w;
    }
    if (tb) {
      let ob0 = ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb0.y;
      tile_b[ob0 + 2u] = rb0.z;
      tile_b[ob0 + 3u] = rb0.w;
      let ob1 = ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
      tile_b[ob1] = rb1.x;
      tile_b[ob1 + 1u] = rb1.y;
      tile_b[ob1 + 2u] = rb1.z;
      tile_b[ob1 + 3u] = rb1.w;
      let ob2 = ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
      tile_b[ob2] = rb2.x;
      tile_b[ob2 + 1u] = rb2.y;
      tile_b[ob2 + 2u] = rb2.z;
      tile_b[ob2 + 3u] = rb2.w;
      let ob3 = ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
      tile_b[ob3] = rb3.x;
      tile_b[ob3 + 1u] = rb3.y;
      tile_b[ob3 + 2u] = rb3.z;
      tile_b[ob3 + 3u] = rb3.w;
    } else {
      let ob0 = (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
      tile_b[ob0] = rb0.x;
      tile_b[ob0 + 1u] = rb1.x;
      tile_b[ob0 + 2u] = rb2.x;
      tile_b[ob0 + 3u] = rb3.x;
      tile_b[ob0 + 40u] = rb0.y;
      tile_b[ob0 + 41u] = rb1.y;
      tile_b[ob0 + 42u] = rb2.y;
      tile_b[ob0 + 43u] = rb3.y;
      tile_b[ob0 + 80u] = rb0.z;
      tile_b[ob0 + 81u] = rb1.z;
      tile_b[ob0 + 82u] = rb2.z;
      tile_b[ob0 + 83u] = rb3.z;
      tile_b[ob0 + 120u] = rb0.w;
      tile_b[ob0 + 121u] = rb1.w;
      tile_b[ob0 + 122u] = rb2.w;
      tile_b[ob0 + 123u] = rb3.w;
    }
  }
  if (steps > 1u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 32u + 32u <= a_ld && a_al) {  // inside
        ra0_1 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 32u + ((lid) & 7u) * 4u) / 4u];
        ra1_1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 32u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_1 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 32u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_1 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 32u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(a_base, row0 + ((lid) >> 3u), 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_1 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_1 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_1 = ta_in[(a_base + (32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_1 = ta_in[(a_base + (32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_1 = ta_in[(a_base + (32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_1 = ta_in[(a_base + (32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_1 = fetch_a(a_base, 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_1 = fetch_a(a_base, 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_1 = fetch_a(a_base, 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_1 = fetch_a(a_base, 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 32u + 32u <= b_ld && b_al) {  // inside
        rb0_1 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 32u + ((lid) & 7u) * 4u) / 4u];
        rb1_1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 32u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_1 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 32u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_1 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 32u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(b_base, col0 + ((lid) >> 3u), 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_1 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_1 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_1 = tb_in[(b_base + (32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_1 = tb_in[(b_base + (32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_1 = tb_in[(b_base + (32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_1 = tb_in[(b_base + (32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_1 = fetch_b(b_base, 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_1 = fetch_b(b_base, 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_1 = fetch_b(b_base, 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_1 = fetch_b(b_base, 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  if (steps > 2u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 64u + 32u <= a_ld && a_al) {  // inside
        ra0_2 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 64u + ((lid) & 7u) * 4u) / 4u];
        ra1_2 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 64u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 64u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_2 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 64u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_2 = fetch_a(a_base, row0 + ((lid) >> 3u), 64u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_2 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 64u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 64u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_2 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 64u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (64u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_2 = ta_in[(a_base + (64u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_2 = ta_in[(a_base + (64u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_2 = ta_in[(a_base + (64u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_2 = ta_in[(a_base + (64u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_2 = fetch_a(a_base, 64u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_2 = fetch_a(a_base, 64u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_2 = fetch_a(a_base, 64u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_2 = fetch_a(a_base, 64u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 64u + 32u <= b_ld && b_al) {  // inside
        rb0_2 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 64u + ((lid) & 7u) * 4u) / 4u];
        rb1_2 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 64u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 64u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_2 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 64u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_2 = fetch_b(b_base, col0 + ((lid) >> 3u), 64u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_2 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 64u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 64u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_2 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 64u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (64u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_2 = tb_in[(b_base + (64u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_2 = tb_in[(b_base + (64u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_2 = tb_in[(b_base + (64u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_2 = tb_in[(b_base + (64u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_2 = fetch_b(b_base, 64u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_2 = fetch_b(b_base, 64u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_2 = fetch_b(b_base, 64u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_2 = fetch_b(b_base, 64u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  if (steps > 3u) {
    if (!ta) {  // stored [m][k]
      if (row0 + 64u <= a_rows && 96u + 32u <= a_ld && a_al) {  // inside
        ra0_3 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + 96u + ((lid) & 7u) * 4u) / 4u];
        ra1_3 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + 96u + ((lid + 128u) & 7u) * 4u) / 4u];
        ra2_3 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + 96u + ((lid + 256u) & 7u) * 4u) / 4u];
        ra3_3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + 96u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        ra0_3 = fetch_a(a_base, row0 + ((lid) >> 3u), 96u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra1_3 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), 96u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra2_3 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), 96u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
        ra3_3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), 96u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
      }
    } else {  // stored [k][m]: 4x4 blocks
      let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (96u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
        ra0_3 = ta_in[(a_base + (96u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra1_3 = ta_in[(a_base + (96u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra2_3 = ta_in[(a_base + (96u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
        ra3_3 = ta_in[(a_base + (96u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
      } else {
        ra0_3 = fetch_a(a_base, 96u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra1_3 = fetch_a(a_base, 96u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra2_3 = fetch_a(a_base, 96u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
        ra3_3 = fetch_a(a_base, 96u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
      }
    }
    if (tb) {  // stored [n][k]
      if (col0 + 64u <= b_rows && 96u + 32u <= b_ld && b_al) {  // inside
        rb0_3 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + 96u + ((lid) & 7u) * 4u) / 4u];
        rb1_3 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + 96u + ((lid + 128u) & 7u) * 4u) / 4u];
        rb2_3 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + 96u + ((lid + 256u) & 7u) * 4u) / 4u];
        rb3_3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + 96u + ((lid + 384u) & 7u) * 4u) / 4u];
      } else {
        rb0_3 = fetch_b(b_base, col0 + ((lid) >> 3u), 96u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb1_3 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), 96u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb2_3 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), 96u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
        rb3_3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), 96u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
      }
    } else {  // stored [k][n]: 4x4 blocks
      let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
      let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
      if (96u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
        rb0_3 = tb_in[(b_base + (96u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
        rb1_3 = tb_in[(b_base + (96u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
        rb2_3 = tb_in[(b_base + (96u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
        rb3_3 = tb_in[(b_base + (96u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
      } else {
        rb0_3 = fetch_b(b_base, 96u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb1_3 = fetch_b(b_base, 96u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb2_3 = fetch_b(b_base, 96u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
        rb3_3 = fetch_b(b_base, 96u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
      }
    }
  }
  workgroupBarrier();

  for (var s = 0u; s < steps; s += 4u) {
    {  // step s + 0: its tiles in buffer (s + 0) % 2, register set 1 holds step s + 1's
      let cur0 = (s + 0u) % 2u;
      if (s + 4u < steps) {
        if (!ta) {  // stored [m][k]
          if (row0 + 64u <= a_rows && (s + 4u) * 32u + 32u <= a_ld && a_al) {  // inside
            ra0 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid) & 7u) * 4u) / 4u];
            ra1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
            ra2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
            ra3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
          } else {
            ra0 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 4u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
            ra3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
          }
        } else {  // stored [k][m]: 4x4 blocks
          let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
          let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
          if ((s + 4u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
            ra0 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra1 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra2 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
            ra3 = ta_in[(a_base + ((s + 4u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
          } else {
            ra0 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra1 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra2 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            ra3 = fetch_a(a_base, (s + 4u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
          }
        }
        if (tb) {  // stored [n][k]
          if (col0 + 64u <= b_rows && (s + 4u) * 32u + 32u <= b_ld && b_al) {  // inside
            rb0 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid) & 7u) * 4u) / 4u];
            rb1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
            rb2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
            rb3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
          } else {
            rb0 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 4u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 4u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 4u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
            rb3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 4u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
          }
        } else {  // stored [k][n]: 4x4 blocks
          let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
          let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
          if ((s + 4u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
            rb0 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
            rb1 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
            rb2 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
            rb3 = tb_in[(b_base + ((s + 4u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
          } else {
            rb0 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb1 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb2 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            rb3 = fetch_b(b_base, (s + 4u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
          }
        }
      }
      {  // k 0 .. 15 of the step
        var b0: subgroup_matrix_right<f16, 16, 16>;
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur0 * 2560u + (scol + 0u) * 40u + 0u, true, 40u);
        var b1: subgroup_matrix_right<f16, 16, 16>;
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur0 * 2560u + (scol + 16u) * 40u + 0u, true, 40u);
        var a0: subgroup_matrix_left<f16, 16, 16>;
        a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur0 * 2560u + (srow + 0u) * 40u + 0u, false, 40u);
        var a1: subgroup_matrix_left<f16, 16, 16>;
        a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur0 * 2560u + (srow + 16u) * 40u + 0u, false, 40u);
        c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
        c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
        c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
        c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
      }
      {  // k 16 .. 31 of the step
        var b0: subgroup_matrix_right<f16, 16, 16>;
        b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur0 * 2560u + (scol + 0u) * 40u + 16u, true, 40u);
        var b1: subgroup_matrix_right<f16, 16, 16>;
        b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur0 * 2560u + (scol + 16u) * 40u + 16u, true, 40u);
        var a0: subgroup_matrix_left<f16, 16, 16>;
        a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur0 * 2560u + (srow + 0u) * 40u + 16u, false, 40u);
        var a1: subgroup_matrix_left<f16, 16, 16>;
        a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur0 * 2560u + (srow + 16u) * 40u + 16u, false, 40u);
        c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
        c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
        c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
        c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
      }
      if (s + 1u < steps) {
        if (!ta) {
          let oa0 = (1u - cur0) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra0_1.y;
          tile_a[oa0 + 2u] = ra0_1.z;
          tile_a[oa0 + 3u] = ra0_1.w;
          let oa1 = (1u - cur0) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
          tile_a[oa1] = ra1_1.x;
          tile_a[oa1 + 1u] = ra1_1.y;
          tile_a[oa1 + 2u] = ra1_1.z;
          tile_a[oa1 + 3u] = ra1_1.w;
          let oa2 = (1u - cur0) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
          tile_a[oa2] = ra2_1.x;
          tile_a[oa2 + 1u] = ra2_1.y;
          tile_a[oa2 + 2u] = ra2_1.z;
          tile_a[oa2 + 3u] = ra2_1.w;
          let oa3 = (1u - cur0) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
          tile_a[oa3] = ra3_1.x;
          tile_a[oa3 + 1u] = ra3_1.y;
          tile_a[oa3 + 2u] = ra3_1.z;
          tile_a[oa3 + 3u] = ra3_1.w;
        } else {
          let oa0 = (1u - cur0) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
          tile_a[oa0] = ra0_1.x;
          tile_a[oa0 + 1u] = ra1_1.x;
          tile_a[oa0 + 2u] = ra2_1.x;
          tile_a[oa0 + 3u] = ra3_1.x;
          tile_a[oa0 + 40u] = ra0_1.y;
          tile_a[oa0 + 41u] = ra1_1.y;
          tile_a[oa0 + 42u] = ra2_1.y;
          tile_a[oa0 + 43u] = ra3_1.y;
          tile_a[oa0 + 80u] = ra0_1.z;
          tile_a[oa0 + 81u] = ra1_1.z;
          tile_a[oa0 + 82u] = ra2_1.z;
          tile_a[oa0 + 83u] = ra3_1.z;
          tile_a[oa0 + 120u] = ra0_1.w;
          tile_a[oa0 + 121u] = ra1_1.w;
          tile_a[oa0 + 122u] = ra2_1.w;
          tile_a[oa0 + 123u] = ra3_1.w;
        }
        if (tb) {
          let ob0 = (1u - cur0) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
          tile_b[ob0] = rb0_1.x;
          tile_b[ob0 + 1u] = rb0_1.y;
          tile_b[ob0 + 2u] = rb0_1.z;
          tile_b[ob0 + 3u] = rb0_1.w;
          let ob1 = (1u - cur0) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
          tile_b[ob1] = rb1_1.x;
          tile_b[ob1 + 1u] = rb1_1.y;
          tile_b[ob1 + 2u] = rb1_1.z;
          tile_b[ob1 + 3u] = rb1_1.w;
          let ob2 = (1u - cur0) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
          tile_b[ob2] = rb2_1.x;
          tile_b[ob2 + 1u] = rb2_1.y;
          tile_b[ob2 + 2u] = rb2_1.z;
          tile_b[ob2 + 3u] = rb2_1.w;
          let ob3 = (1u - cur0) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
          tile_b[ob3] = rb3_1.x;
          tile_b[ob3 + 1u] = rb3_1.y;
          tile_b[ob3 + 2u] = rb3_1.z;
          tile_b[ob3 + 3u] = rb3_1.w;
        } else {
          let ob0 = (1u - cur0) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
          tile_b[ob0] = rb0_1.x;
          tile_b[ob0 + 1u] = rb1_1.x;
          tile_b[ob0 + 2u] = rb2_1.x;
          tile_b[ob0 + 3u] = rb3_1.x;
          tile_b[ob0 + 40u] = rb0_1.y;
          tile_b[ob0 + 41u] = rb1_1.y;
          tile_b[ob0 + 42u] = rb2_1.y;
          tile_b[ob0 + 43u] = rb3_1.y;
          tile_b[ob0 + 80u] = rb0_1.z;
          tile_b[ob0 + 81u] = rb1_1.z;
          tile_b[ob0 + 82u] = rb2_1.z;
          tile_b[ob0 + 83u] = rb3_1.z;
          tile_b[ob0 + 120u] = rb0_1.w;
          tile_b[ob0 + 121u] = rb1_1.w;
          tile_b[ob0 + 122u] = rb2_1.w;
          tile_b[ob0 + 123u] = rb3_1.w;
        }
      }
      workgroupBarrier();
    }
    if (s + 1u < steps) {
      {  // step s + 1: its tiles in buffer (s + 1) % 2, register set 2 holds step s + 2's
        let cur1 = (s + 1u) % 2u;
        if (s + 5u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 5u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_1 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_1 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_1 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_1 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_1 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 5u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_1 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_1 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_1 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 5u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_1 = ta_in[(a_base + ((s + 5u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_1 = fetch_a(a_base, (s + 5u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 5u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_1 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_1 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_1 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_1 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_1 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 5u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_1 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 5u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_1 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 5u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_1 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 5u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 5u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_1 = tb_in[(b_base + ((s + 5u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_1 = fetch_b(b_base, (s + 5u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur1 * 2560u + (scol + 0u) * 40u + 0u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur1 * 2560u + (scol + 16u) * 40u + 0u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur1 * 2560u + (srow + 0u) * 40u + 0u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur1 * 2560u + (srow + 16u) * 40u + 0u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur1 * 2560u + (scol + 0u) * 40u + 16u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur1 * 2560u + (scol + 16u) * 40u + 16u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur1 * 2560u + (srow + 0u) * 40u + 16u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur1 * 2560u + (srow + 16u) * 40u + 16u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        if (s + 2u < steps) {
          if (!ta) {
            let oa0 = (1u - cur1) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0_2.x;
            tile_a[oa0 + 1u] = ra0_2.y;
            tile_a[oa0 + 2u] = ra0_2.z;
            tile_a[oa0 + 3u] = ra0_2.w;
            let oa1 = (1u - cur1) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1_2.x;
            tile_a[oa1 + 1u] = ra1_2.y;
            tile_a[oa1 + 2u] = ra1_2.z;
            tile_a[oa1 + 3u] = ra1_2.w;
            let oa2 = (1u - cur1) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2_2.x;
            tile_a[oa2 + 1u] = ra2_2.y;
            tile_a[oa2 + 2u] = ra2_2.z;
            tile_a[oa2 + 3u] = ra2_2.w;
            let oa3 = (1u - cur1) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3_2.x;
            tile_a[oa3 + 1u] = ra3_2.y;
            tile_a[oa3 + 2u] = ra3_2.z;
            tile_a[oa3 + 3u] = ra3_2.w;
          } else {
            let oa0 = (1u - cur1) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0_2.x;
            tile_a[oa0 + 1u] = ra1_2.x;
            tile_a[oa0 + 2u] = ra2_2.x;
            tile_a[oa0 + 3u] = ra3_2.x;
            tile_a[oa0 + 40u] = ra0_2.y;
            tile_a[oa0 + 41u] = ra1_2.y;
            tile_a[oa0 + 42u] = ra2_2.y;
            tile_a[oa0 + 43u] = ra3_2.y;
            tile_a[oa0 + 80u] = ra0_2.z;
            tile_a[oa0 + 81u] = ra1_2.z;
            tile_a[oa0 + 82u] = ra2_2.z;
            tile_a[oa0 + 83u] = ra3_2.z;
            tile_a[oa0 + 120u] = ra0_2.w;
            tile_a[oa0 + 121u] = ra1_2.w;
            tile_a[oa0 + 122u] = ra2_2.w;
            tile_a[oa0 + 123u] = ra3_2.w;
          }
          if (tb) {
            let ob0 = (1u - cur1) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0_2.x;
            tile_b[ob0 + 1u] = rb0_2.y;
            tile_b[ob0 + 2u] = rb0_2.z;
            tile_b[ob0 + 3u] = rb0_2.w;
            let ob1 = (1u - cur1) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1_2.x;
            tile_b[ob1 + 1u] = rb1_2.y;
            tile_b[ob1 + 2u] = rb1_2.z;
            tile_b[ob1 + 3u] = rb1_2.w;
            let ob2 = (1u - cur1) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2_2.x;
            tile_b[ob2 + 1u] = rb2_2.y;
            tile_b[ob2 + 2u] = rb2_2.z;
            tile_b[ob2 + 3u] = rb2_2.w;
            let ob3 = (1u - cur1) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3_2.x;
            tile_b[ob3 + 1u] = rb3_2.y;
            tile_b[ob3 + 2u] = rb3_2.z;
            tile_b[ob3 + 3u] = rb3_2.w;
          } else {
            let ob0 = (1u - cur1) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0_2.x;
            tile_b[ob0 + 1u] = rb1_2.x;
            tile_b[ob0 + 2u] = rb2_2.x;
            tile_b[ob0 + 3u] = rb3_2.x;
            tile_b[ob0 + 40u] = rb0_2.y;
            tile_b[ob0 + 41u] = rb1_2.y;
            tile_b[ob0 + 42u] = rb2_2.y;
            tile_b[ob0 + 43u] = rb3_2.y;
            tile_b[ob0 + 80u] = rb0_2.z;
            tile_b[ob0 + 81u] = rb1_2.z;
            tile_b[ob0 + 82u] = rb2_2.z;
            tile_b[ob0 + 83u] = rb3_2.z;
            tile_b[ob0 + 120u] = rb0_2.w;
            tile_b[ob0 + 121u] = rb1_2.w;
            tile_b[ob0 + 122u] = rb2_2.w;
            tile_b[ob0 + 123u] = rb3_2.w;
          }
        }
        workgroupBarrier();
      }
    }
    if (s + 2u < steps) {
      {  // step s + 2: its tiles in buffer (s + 2) % 2, register set 3 holds step s + 3's
        let cur2 = (s + 2u) % 2u;
        if (s + 6u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 6u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_2 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_2 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_2 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_2 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_2 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 6u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_2 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_2 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_2 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 6u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_2 = ta_in[(a_base + ((s + 6u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_2 = fetch_a(a_base, (s + 6u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 6u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_2 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_2 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_2 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_2 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_2 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 6u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_2 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 6u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_2 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 6u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_2 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 6u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 6u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_2 = tb_in[(b_base + ((s + 6u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_2 = fetch_b(b_base, (s + 6u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur2 * 2560u + (scol + 0u) * 40u + 0u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur2 * 2560u + (scol + 16u) * 40u + 0u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur2 * 2560u + (srow + 0u) * 40u + 0u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur2 * 2560u + (srow + 16u) * 40u + 0u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur2 * 2560u + (scol + 0u) * 40u + 16u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur2 * 2560u + (scol + 16u) * 40u + 16u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur2 * 2560u + (srow + 0u) * 40u + 16u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur2 * 2560u + (srow + 16u) * 40u + 16u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        if (s + 3u < steps) {
          if (!ta) {
            let oa0 = (1u - cur2) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0_3.x;
            tile_a[oa0 + 1u] = ra0_3.y;
            tile_a[oa0 + 2u] = ra0_3.z;
            tile_a[oa0 + 3u] = ra0_3.w;
            let oa1 = (1u - cur2) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1_3.x;
            tile_a[oa1 + 1u] = ra1_3.y;
            tile_a[oa1 + 2u] = ra1_3.z;
            tile_a[oa1 + 3u] = ra1_3.w;
            let oa2 = (1u - cur2) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2_3.x;
            tile_a[oa2 + 1u] = ra2_3.y;
            tile_a[oa2 + 2u] = ra2_3.z;
            tile_a[oa2 + 3u] = ra2_3.w;
            let oa3 = (1u - cur2) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3_3.x;
            tile_a[oa3 + 1u] = ra3_3.y;
            tile_a[oa3 + 2u] = ra3_3.z;
            tile_a[oa3 + 3u] = ra3_3.w;
          } else {
            let oa0 = (1u - cur2) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0_3.x;
            tile_a[oa0 + 1u] = ra1_3.x;
            tile_a[oa0 + 2u] = ra2_3.x;
            tile_a[oa0 + 3u] = ra3_3.x;
            tile_a[oa0 + 40u] = ra0_3.y;
            tile_a[oa0 + 41u] = ra1_3.y;
            tile_a[oa0 + 42u] = ra2_3.y;
            tile_a[oa0 + 43u] = ra3_3.y;
            tile_a[oa0 + 80u] = ra0_3.z;
            tile_a[oa0 + 81u] = ra1_3.z;
            tile_a[oa0 + 82u] = ra2_3.z;
            tile_a[oa0 + 83u] = ra3_3.z;
            tile_a[oa0 + 120u] = ra0_3.w;
            tile_a[oa0 + 121u] = ra1_3.w;
            tile_a[oa0 + 122u] = ra2_3.w;
            tile_a[oa0 + 123u] = ra3_3.w;
          }
          if (tb) {
            let ob0 = (1u - cur2) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0_3.x;
            tile_b[ob0 + 1u] = rb0_3.y;
            tile_b[ob0 + 2u] = rb0_3.z;
            tile_b[ob0 + 3u] = rb0_3.w;
            let ob1 = (1u - cur2) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1_3.x;
            tile_b[ob1 + 1u] = rb1_3.y;
            tile_b[ob1 + 2u] = rb1_3.z;
            tile_b[ob1 + 3u] = rb1_3.w;
            let ob2 = (1u - cur2) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2_3.x;
            tile_b[ob2 + 1u] = rb2_3.y;
            tile_b[ob2 + 2u] = rb2_3.z;
            tile_b[ob2 + 3u] = rb2_3.w;
            let ob3 = (1u - cur2) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3_3.x;
            tile_b[ob3 + 1u] = rb3_3.y;
            tile_b[ob3 + 2u] = rb3_3.z;
            tile_b[ob3 + 3u] = rb3_3.w;
          } else {
            let ob0 = (1u - cur2) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0_3.x;
            tile_b[ob0 + 1u] = rb1_3.x;
            tile_b[ob0 + 2u] = rb2_3.x;
            tile_b[ob0 + 3u] = rb3_3.x;
            tile_b[ob0 + 40u] = rb0_3.y;
            tile_b[ob0 + 41u] = rb1_3.y;
            tile_b[ob0 + 42u] = rb2_3.y;
            tile_b[ob0 + 43u] = rb3_3.y;
            tile_b[ob0 + 80u] = rb0_3.z;
            tile_b[ob0 + 81u] = rb1_3.z;
            tile_b[ob0 + 82u] = rb2_3.z;
            tile_b[ob0 + 83u] = rb3_3.z;
            tile_b[ob0 + 120u] = rb0_3.w;
            tile_b[ob0 + 121u] = rb1_3.w;
            tile_b[ob0 + 122u] = rb2_3.w;
            tile_b[ob0 + 123u] = rb3_3.w;
          }
        }
        workgroupBarrier();
      }
    }
    if (s + 3u < steps) {
      {  // step s + 3: its tiles in buffer (s + 3) % 2, register set 0 holds step s + 4's
        let cur3 = (s + 3u) % 2u;
        if (s + 7u < steps) {
          if (!ta) {  // stored [m][k]
            if (row0 + 64u <= a_rows && (s + 7u) * 32u + 32u <= a_ld && a_al) {  // inside
              ra0_3 = ta_in[(a_base + (row0 + ((lid) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid) & 7u) * 4u) / 4u];
              ra1_3 = ta_in[(a_base + (row0 + ((lid + 128u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              ra2_3 = ta_in[(a_base + (row0 + ((lid + 256u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              ra3_3 = ta_in[(a_base + (row0 + ((lid + 384u) >> 3u)) * a_rs + (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              ra0_3 = fetch_a(a_base, row0 + ((lid) >> 3u), (s + 7u) * 32u + ((lid) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra1_3 = fetch_a(a_base, row0 + ((lid + 128u) >> 3u), (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra2_3 = fetch_a(a_base, row0 + ((lid + 256u) >> 3u), (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u, a_rows, a_ld, a_rs);
              ra3_3 = fetch_a(a_base, row0 + ((lid + 384u) >> 3u), (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u, a_rows, a_ld, a_rs);
            }
          } else {  // stored [k][m]: 4x4 blocks
            let ar0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let ak0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 7u) * 32u + 32u <= a_rows && row0 + 64u <= a_ld && a_al) {  // inside
              ra0_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 0u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra1_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 1u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra2_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 2u) * a_rs + row0 + ar0 * 4u) / 4u];
              ra3_3 = ta_in[(a_base + ((s + 7u) * 32u + ak0 * 4u + 3u) * a_rs + row0 + ar0 * 4u) / 4u];
            } else {
              ra0_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 0u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra1_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 1u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra2_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 2u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
              ra3_3 = fetch_a(a_base, (s + 7u) * 32u + ak0 * 4u + 3u, row0 + ar0 * 4u, a_rows, a_ld, a_rs);
            }
          }
          if (tb) {  // stored [n][k]
            if (col0 + 64u <= b_rows && (s + 7u) * 32u + 32u <= b_ld && b_al) {  // inside
              rb0_3 = tb_in[(b_base + (col0 + ((lid) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid) & 7u) * 4u) / 4u];
              rb1_3 = tb_in[(b_base + (col0 + ((lid + 128u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u) / 4u];
              rb2_3 = tb_in[(b_base + (col0 + ((lid + 256u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u) / 4u];
              rb3_3 = tb_in[(b_base + (col0 + ((lid + 384u) >> 3u)) * b_rs + (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u) / 4u];
            } else {
              rb0_3 = fetch_b(b_base, col0 + ((lid) >> 3u), (s + 7u) * 32u + ((lid) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb1_3 = fetch_b(b_base, col0 + ((lid + 128u) >> 3u), (s + 7u) * 32u + ((lid + 128u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb2_3 = fetch_b(b_base, col0 + ((lid + 256u) >> 3u), (s + 7u) * 32u + ((lid + 256u) & 7u) * 4u, b_rows, b_ld, b_rs);
              rb3_3 = fetch_b(b_base, col0 + ((lid + 384u) >> 3u), (s + 7u) * 32u + ((lid + 384u) & 7u) * 4u, b_rows, b_ld, b_rs);
            }
          } else {  // stored [k][n]: 4x4 blocks
            let br0 = (((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u);
            let bk0 = ((lid) >> 7u) * 8u + ((lid) & 7u);
            if ((s + 7u) * 32u + 32u <= b_rows && col0 + 64u <= b_ld && b_al) {  // inside
              rb0_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 0u) * b_rs + col0 + br0 * 4u) / 4u];
              rb1_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 1u) * b_rs + col0 + br0 * 4u) / 4u];
              rb2_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 2u) * b_rs + col0 + br0 * 4u) / 4u];
              rb3_3 = tb_in[(b_base + ((s + 7u) * 32u + bk0 * 4u + 3u) * b_rs + col0 + br0 * 4u) / 4u];
            } else {
              rb0_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 0u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb1_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 1u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb2_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 2u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
              rb3_3 = fetch_b(b_base, (s + 7u) * 32u + bk0 * 4u + 3u, col0 + br0 * 4u, b_rows, b_ld, b_rs);
            }
          }
        }
        {  // k 0 .. 15 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur3 * 2560u + (scol + 0u) * 40u + 0u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur3 * 2560u + (scol + 16u) * 40u + 0u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur3 * 2560u + (srow + 0u) * 40u + 0u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur3 * 2560u + (srow + 16u) * 40u + 0u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        {  // k 16 .. 31 of the step
          var b0: subgroup_matrix_right<f16, 16, 16>;
          b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur3 * 2560u + (scol + 0u) * 40u + 16u, true, 40u);
          var b1: subgroup_matrix_right<f16, 16, 16>;
          b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&tile_b, cur3 * 2560u + (scol + 16u) * 40u + 16u, true, 40u);
          var a0: subgroup_matrix_left<f16, 16, 16>;
          a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur3 * 2560u + (srow + 0u) * 40u + 16u, false, 40u);
          var a1: subgroup_matrix_left<f16, 16, 16>;
          a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&tile_a, cur3 * 2560u + (srow + 16u) * 40u + 16u, false, 40u);
          c00 = subgroupMatrixMultiplyAccumulate(a0, b0, c00);
          c01 = subgroupMatrixMultiplyAccumulate(a0, b1, c01);
          c10 = subgroupMatrixMultiplyAccumulate(a1, b0, c10);
          c11 = subgroupMatrixMultiplyAccumulate(a1, b1, c11);
        }
        if (s + 4u < steps) {
          if (!ta) {
            let oa0 = (1u - cur3) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra0.y;
            tile_a[oa0 + 2u] = ra0.z;
            tile_a[oa0 + 3u] = ra0.w;
            let oa1 = (1u - cur3) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_a[oa1] = ra1.x;
            tile_a[oa1 + 1u] = ra1.y;
            tile_a[oa1 + 2u] = ra1.z;
            tile_a[oa1 + 3u] = ra1.w;
            let oa2 = (1u - cur3) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_a[oa2] = ra2.x;
            tile_a[oa2 + 1u] = ra2.y;
            tile_a[oa2 + 2u] = ra2.z;
            tile_a[oa2 + 3u] = ra2.w;
            let oa3 = (1u - cur3) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_a[oa3] = ra3.x;
            tile_a[oa3 + 1u] = ra3.y;
            tile_a[oa3 + 2u] = ra3.z;
            tile_a[oa3 + 3u] = ra3.w;
          } else {
            let oa0 = (1u - cur3) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_a[oa0] = ra0.x;
            tile_a[oa0 + 1u] = ra1.x;
            tile_a[oa0 + 2u] = ra2.x;
            tile_a[oa0 + 3u] = ra3.x;
            tile_a[oa0 + 40u] = ra0.y;
            tile_a[oa0 + 41u] = ra1.y;
            tile_a[oa0 + 42u] = ra2.y;
            tile_a[oa0 + 43u] = ra3.y;
            tile_a[oa0 + 80u] = ra0.z;
            tile_a[oa0 + 81u] = ra1.z;
            tile_a[oa0 + 82u] = ra2.z;
            tile_a[oa0 + 83u] = ra3.z;
            tile_a[oa0 + 120u] = ra0.w;
            tile_a[oa0 + 121u] = ra1.w;
            tile_a[oa0 + 122u] = ra2.w;
            tile_a[oa0 + 123u] = ra3.w;
          }
          if (tb) {
            let ob0 = (1u - cur3) * 2560u + ((lid) >> 3u) * 40u + ((lid) & 7u) * 4u;
            tile_b[ob0] = rb0.x;
            tile_b[ob0 + 1u] = rb0.y;
            tile_b[ob0 + 2u] = rb0.z;
            tile_b[ob0 + 3u] = rb0.w;
            let ob1 = (1u - cur3) * 2560u + ((lid + 128u) >> 3u) * 40u + ((lid + 128u) & 7u) * 4u;
            tile_b[ob1] = rb1.x;
            tile_b[ob1 + 1u] = rb1.y;
            tile_b[ob1 + 2u] = rb1.z;
            tile_b[ob1 + 3u] = rb1.w;
            let ob2 = (1u - cur3) * 2560u + ((lid + 256u) >> 3u) * 40u + ((lid + 256u) & 7u) * 4u;
            tile_b[ob2] = rb2.x;
            tile_b[ob2 + 1u] = rb2.y;
            tile_b[ob2 + 2u] = rb2.z;
            tile_b[ob2 + 3u] = rb2.w;
            let ob3 = (1u - cur3) * 2560u + ((lid + 384u) >> 3u) * 40u + ((lid + 384u) & 7u) * 4u;
            tile_b[ob3] = rb3.x;
            tile_b[ob3 + 1u] = rb3.y;
            tile_b[ob3 + 2u] = rb3.z;
            tile_b[ob3 + 3u] = rb3.w;
          } else {
            let ob0 = (1u - cur3) * 2560u + (((((lid) >> 5u) & 3u) * 4u + (((lid) >> 3u) & 3u)) * 4u) * 40u + (((lid) >> 7u) * 8u + ((lid) & 7u)) * 4u;
            tile_b[ob0] = rb0.x;
            tile_b[ob0 + 1u] = rb1.x;
            tile_b[ob0 + 2u] = rb2.x;
            tile_b[ob0 + 3u] = rb3.x;
            tile_b[ob0 + 40u] = rb0.y;
            tile_b[ob0 + 41u] = rb1.y;
            tile_b[ob0 + 42u] = rb2.y;
            tile_b[ob0 + 43u] = rb3.y;
            tile_b[ob0 + 80u] = rb0.z;
            tile_b[ob0 + 81u] = rb1.z;
            tile_b[ob0 + 82u] = rb2.z;
            tile_b[ob0 + 83u] = rb3.z;
            tile_b[ob0 + 120u] = rb0.w;
            tile_b[ob0 + 121u] = rb1.w;
            tile_b[ob0 + 122u] = rb2.w;
            tile_b[ob0 + 123u] = rb3.w;
          }
        }
        workgroupBarrier();
      }
    }
  }

  if (direct_c) {
    subgroupMatrixStore(&tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 0u, c00, false, ldc);
    subgroupMatrixStore(&tc_out, c_base + (row0 + srow + 0u) * ldc + col0 + scol + 16u, c01, false, ldc);
    subgroupMatrixStore(&tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 0u, c10, false, ldc);
    subgroupMatrixStore(&tc_out, c_base + (row0 + srow + 16u) * ldc + col0 + scol + 16u, c11, false, ldc);
  } else {
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c00, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 0u, M, N, c_base, ldc);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c01, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 0u, col0 + scol + 16u, M, N, c_base, ldc);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c10, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 0u, M, N, c_base, ldc);
    workgroupBarrier();
    subgroupMatrixStore(&tile_c, cbase, c11, false, 16u);
    workgroupBarrier();
    c_out(cbase, lxy.x, row0 + srow + 16u, col0 + scol + 16u, M, N, c_base, ldc);
  }
}
