// Port of cast_f16, matmul_f16in.wgsl (ours, issue 24). Line-by-line; same group/binding/access as
// the WGSL. f16 as WGSL's `enable f16` maps it (R22); WGSL's bitcast<vec2<f16>>(u32) is
// unpackFloat2x16 (x = the low half).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer CsIn { vec4 cs_in[]; };
layout(set = 0, binding = 1, std430) buffer CsOut { f16vec4 cs_out[]; };
layout(set = 0, binding = 2, std430) buffer CsOverflow { uint cs_overflow; };  // atomic
layout(set = 0, binding = 3, std140) uniform CsDims { uvec4 cs_dims; };  // (n4, _, _, _)

// The f16 bits nearest to x (ties to even), from its f32 bits.
uint f16_bits_rne(float x) {
    uint b = floatBitsToUint(x);
    uint sign = (b >> 16u) & 0x8000u;
    uint a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {  // NaN: the quiet NaN 0x7e00 with x's sign
        return sign | 0x7e00u;
    }
    if (a >= 0x477ff000u) {  // >= 65520 (halfway to 2^16, ties to the even +-inf), or inf
        return sign | 0x7c00u;
    }
    if (a >= 0x38800000u) {  // a normal f16 (>= 2^-14): rebias the exponent, round 13 bits off
        uint r = a - 0x38000000u;
        return sign | ((r + 0xfffu + ((r >> 13u) & 1u)) >> 13u);
    }
    if (a <= 0x33000000u) {  // <= 2^-25: 0 (2^-25 itself ties to the even 0)
        return sign;
    }
    // a subnormal f16: units of 2^-24, the significand shifted right by 14..24 bits
    uint e = a >> 23u;
    uint m = (a & 0x7fffffu) | 0x800000u;
    uint shift = 126u - e;
    uint q = m >> shift;
    uint rem = m & ((1u << shift) - 1u);
    uint half_ = 1u << (shift - 1u);
    uint up = 0u;
    if (rem > half_ || (rem == half_ && (q & 1u) == 1u)) { up = 1u; }
    return sign | (q + up);
}

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= cs_dims.x) { return; }
    vec4 v = cs_in[i];
    uint h0 = f16_bits_rne(v.x);
    uint h1 = f16_bits_rne(v.y);
    uint h2 = f16_bits_rne(v.z);
    uint h3 = f16_bits_rne(v.w);
    uint bad = 0u;
    if ((h0 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h1 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h2 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if ((h3 & 0x7c00u) == 0x7c00u) { bad = bad + 1u; }
    if (bad != 0u) { atomicAdd(cs_overflow, bad); }
    f16vec2 lo = unpackFloat2x16(h0 | (h1 << 16u));
    f16vec2 hi = unpackFloat2x16(h2 | (h3 << 16u));
    cs_out[i] = f16vec4(lo.x, lo.y, hi.x, hi.y);
}
