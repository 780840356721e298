// Port of matmul_f16in, matmul_f16in.wgsl (ours, issue 24). Line-by-line; same group/binding/access
// as the WGSL. f16 as WGSL's `enable f16` maps it (R22): explicit float16_t plus 16-bit storage.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer FaIn { f16vec4 fa_in[]; };
layout(set = 0, binding = 1, std430) readonly buffer FbIn { f16vec4 fb_in[]; };
layout(set = 0, binding = 2, std430) buffer FcOut { float fc_out[]; };
layout(set = 0, binding = 3, std140) uniform FDims { uvec4 fdims; };  // (M, N, K, flags)

const uint TRANS_A = 1u;
const uint TRANS_B = 2u;
const uint ACCUMULATE = 8u;
const uint FT = 32u;  // the side of a workgroup's block of C

float f16in_a(uint i) {
    return float(fa_in[i / 4u][i % 4u]);
}
float f16in_b(uint i) {
    return float(fb_in[i / 4u][i % 4u]);
}

// Row m of the invocation's 4 x 4 block, columns n..n+3 inside C.
void f16in_store(uint m, uint n, vec4 v) {
    uint M = fdims.x;
    uint N = fdims.y;
    if (m >= M) { return; }
    for (uint j = 0u; j < 4u; j = j + 1u) {
        if (n + j < N) {
            uint i = m * N + n + j;
            if ((fdims.w & ACCUMULATE) != 0u) {
                fc_out[i] = fc_out[i] + v[j];
            } else {
                fc_out[i] = v[j];
            }
        }
    }
}

// 8 x 8 invocations, each a 4 x 4 block of C (rows wid.y * 32 + lid.y * 4 .., columns
// wid.x * 32 + lid.x * 4 ..) read straight from the buffers: no workgroup memory, no barrier.
void main() {
    uvec3 wid = gl_WorkGroupID;
    uvec3 lid = gl_LocalInvocationID;
    uint M = fdims.x;
    uint N = fdims.y;
    uint K = fdims.z;
    if (M == 0u || N == 0u) { return; }
    uint row0 = wid.y * FT + lid.y * 4u;
    uint col0 = wid.x * FT + lid.x * 4u;
    // op(A)[m, k] is A[m * sam + k * sak], op(B)[k, n] is B[k * sbk + n * sbn]. Rows and columns
    // past C read the last row / column (inside the operands) and are never stored, so the K
    // loop has no branch.
    uint sam = K;
    uint sak = 1u;
    if ((fdims.w & TRANS_A) != 0u) {
        sam = 1u;
        sak = M;
    }
    uint sbk = N;
    uint sbn = 1u;
    if ((fdims.w & TRANS_B) != 0u) {
        sbk = 1u;
        sbn = K;
    }
    uint ia0 = min(row0, M - 1u) * sam;
    uint ia1 = min(row0 + 1u, M - 1u) * sam;
    uint ia2 = min(row0 + 2u, M - 1u) * sam;
    uint ia3 = min(row0 + 3u, M - 1u) * sam;
    uint ib0 = min(col0, N - 1u) * sbn;
    uint ib1 = min(col0 + 1u, N - 1u) * sbn;
    uint ib2 = min(col0 + 2u, N - 1u) * sbn;
    uint ib3 = min(col0 + 3u, N - 1u) * sbn;
    vec4 acc0 = vec4(0.0);
    vec4 acc1 = vec4(0.0);
    vec4 acc2 = vec4(0.0);
    vec4 acc3 = vec4(0.0);
    for (uint k = 0u; k < K; k = k + 1u) {
        vec4 b = vec4(f16in_b(ib0), f16in_b(ib1), f16in_b(ib2), f16in_b(ib3));
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
