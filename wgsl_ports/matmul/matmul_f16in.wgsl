// matmul_f16in.wgsl: wgslvk's own kernels for the mixed-precision trainer (ours, issue 24; not
// from the browser engine). The fallback of subgroup_matrix's sgmm_f16 / sgmm_f16_tiled8 on a
// device without the subgroup-matrix feature (every CI device), with their ABI and flags:
//   matmul_f16in  C[M,N] (+)= op(A)[M,K] op(B)[K,N], A and B f16 (array<vec4<f16>>: the buffers
//                 hold whole vec4s, padded with zeros to a multiple of 8 bytes), C f32, f32
//                 accumulation. Flags TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]),
//                 ACCUMULATE 8 (add the old C); no bias (the trainer adds it in a separate pass,
//                 as for the sgmm kernels). 8 x 8 invocations, each a 4 x 4 block of C read
//                 straight from the buffers (no workgroup memory, no barrier); dispatch
//                 (ceil(N/32), ceil(M/32), 1). Each element is the sum of its K products in k
//                 order, one f32 rounding per step: a product of two f16 values is exact in f32
//                 (11-bit significands), so the result is the same bits whether or not a
//                 compiler fuses the multiply and add.
//   cast_f16      out = f16(in) for n4 vec4s, rounded to nearest, ties to even, computed on the
//                 bits (WGSL leaves the rounding of f32 -> f16 conversions to the implementation:
//                 either neighbour; this kernel fixes it, so the mixed trainer's inputs are the
//                 same bits on every device). Values >= 65520 in magnitude become +-inf, a NaN
//                 the quiet NaN 0x7e00 with its sign. Every output that is not finite adds 1 to
//                 cs_overflow (the trainer reports it: a loss scale too large for the gradients).
//   scale_f32     x *= s for n4 vec4s (the trainer's loss-scale removal over the gradients:
//                 s = 1 / loss scale, a power of two, so each product is exact unless it falls
//                 below the normal range).
enable f16;

const TRANS_A: u32 = 1u;
const TRANS_B: u32 = 2u;
const ACCUMULATE: u32 = 8u;
const FT: u32 = 32u;  // the side of a workgroup's block of C

fn flat_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * 256u + gid.x;
}

// ---- matmul_f16in ----------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> fa_in: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> fb_in: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> fc_out: array<f32>;
@group(0) @binding(3) var<uniform> fdims: vec4<u32>;  // (M, N, K, flags)

fn f16in_a(i: u32) -> f32 {
    return f32(fa_in[i / 4u][i % 4u]);
}
fn f16in_b(i: u32) -> f32 {
    return f32(fb_in[i / 4u][i % 4u]);
}

// Row m of the invocation's 4 x 4 block, columns n..n+3 inside C.
fn f16in_store(m: u32, n: u32, v: vec4<f32>) {
    let M = fdims.x;
    let N = fdims.y;
    if (m >= M) { return; }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (n + j < N) {
            let i = m * N + n + j;
            if ((fdims.w & ACCUMULATE) != 0u) {
                fc_out[i] = fc_out[i] + v[j];
            } else {
                fc_out[i] = v[j];
            }
        }
    }
}

// 8 x 8 invocations, each a 4 x 4 block of C (rows wid.y * 32 + lid.y * 4 .., columns
// wid.x * 32 + lid.x * 4 ..) read straight from the buffers: no workgroup memory, no barrier (a
// CPU device such as lavapipe pays for barriers; a GPU with subgroup matrices runs sgmm instead).
@compute @workgroup_size(8, 8, 1)
fn matmul_f16in(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = fdims.x;
    let N = fdims.y;
    let K = fdims.z;
    if (M == 0u || N == 0u) { return; }
    let row0 = wid.y * FT + lid.y * 4u;
    let col0 = wid.x * FT + lid.x * 4u;
    // op(A)[m, k] is A[m * sam + k * sak], op(B)[k, n] is B[k * sbk + n * sbn]. Rows and columns
    // past C read the last row / column (inside the operands) and are never stored, so the K
    // loop has no branch.
    var sam = K;
    var sak = 1u;
    if ((fdims.w & TRANS_A) != 0u) {
        sam = 1u;
        sak = M;
    }
    var sbk = N;
    var sbn = 1u;
    if ((fdims.w & TRANS_B) != 0u) {
        sbk = 1u;
        sbn = K;
    }
    var ia0 = min(row0, M - 1u) * sam;
    var ia1 = min(row0 + 1u, M - 1u) * sam;
    var ia2 = min(row0 + 2u, M - 1u) * sam;
    var ia3 = min(row0 + 3u, M - 1u) * sam;
    var ib0 = min(col0, N - 1u) * sbn;
    var ib1 = min(col0 + 1u, N - 1u) * sbn;
    var ib2 = min(col0 + 2u, N - 1u) * sbn;
    var ib3 = min(col0 + 3u, N - 1u) * sbn;
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k = 0u; k < K; k = k + 1u) {
        let b = vec4<f32>(f16in_b(ib0), f16in_b(ib1), f16in_b(ib2), f16in_b(ib3));
        acc0 = acc0 + f16in_a(ia0) * b;
        acc1 = acc1 + f16in_a(ia1) * b;
        acc2 = acc2 + f16in_a(ia2) * b;
        acc3 = acc3 + f16in_a(ia3) * b;
        ia0 = ia0 + sak;
        ia1 = ia1 + sak;
        ia2 = ia2 + sak;
        ia3 = ia3 + sak;
        ib0 = ib0 + sbk;
        ib1 = ib1 + sbk;
        ib2 = ib2 + sbk;
        ib3 = ib3 + sbk;
    }
    f16in_store(row0, col0, acc0);
    f16in_store(row0 + 1u, col0, acc1);
    f16in_store(row0 + 2u, col0, acc2);
    f16in_store(row0 + 3u, col0, acc3);
}

// ---- cast_f16 ---------------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read> cs_in: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> cs_out: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> cs_overflow: atomic<u32>;
@group(0) @binding(3) var<uniform> cs_dims: vec4<u32>;  // (n4, _, _, _)

// The f16 bits nearest to x (ties to even), from its f32 bits.
fn f16_bits_rne(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {  // NaN: the quiet NaN 0x7e00 with x's sign
        return sign | 0x7e00u;
    }
    if (a >= 0x477ff000u) {  // >= 65520 (halfway to 2^16, ties to the even +-inf), or inf
        return sign | 0x7c00u;
    }
    if (a >= 0x38800000u) {  // a normal f16 (>= 2^-14): rebias the exponent, round 13 bits off
        let r = a - 0x38000000u;
        return sign | ((r + 0xfffu + ((r >> 13u) & 1u)) >> 13u);
    }
    if (a <= 0x33000000u) {  // <= 2^-25: 0 (2^-25 itself ties to the even 0)
        return sign;
    }
    // a subnormal f16: units of 2^-24, the significand shifted right by 14..24 bits
    let e = a >> 23u;
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;
    let q = m >> shift;
    let rem = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    var up = 0u;
    if (rem > half || (rem == half && (q & 1u) == 1u)) { up = 1u; }
    return sign | (q + up);
}

@compute @workgroup_size(256, 1, 1)
fn cast_f16(@builtin(global_invocation_id) gid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= cs_dims.x) { return; }
    let v = cs_in[i];
    let h0 = f16_bits_rne(v.x);
    let h1 = f16_bits_rne(v.y);
    let h2 = f16_bits_rne(v.z);
    let h3 = f16_bits_rne(v.w);
    var bad = 0u;
    if ((h0 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h1 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h2 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h3 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if (bad != 0u) { atomicAdd(&cs_overflow, bad); }
    let lo = bitcast<vec2<f16>>(h0 | (h1 << 16u));
    let hi = bitcast<vec2<f16>>(h2 | (h3 << 16u));
    cs_out[i] = vec4<f16>(lo.x, lo.y, hi.x, hi.y);
}

// ---- scale_f32 ---------------------------------------------------------------------------------

@group(0) @binding(0) var<storage, read_write> sx: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> sdims: vec4<u32>;  // (n4, bits of s, _, _)

@compute @workgroup_size(256, 1, 1)
fn scale_f32(@builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat_id(gid, nwg);
    if (i >= sdims.x) { return; }
    sx[i] = sx[i] * bitcast<f32>(sdims.y);
}
