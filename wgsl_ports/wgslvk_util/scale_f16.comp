// Port of scale_f16, util_f16.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer HalfIn { float16_t half_in[]; };
layout(set = 0, binding = 1, std430) buffer HalfOut { float16_t half_out[]; };
layout(set = 0, binding = 2, std140) uniform HalfParams { uvec4 half_params; };  // (n, _, _, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= half_params.x) { return; }
    half_out[i] = float16_t(2.0) * half_in[i];
}
