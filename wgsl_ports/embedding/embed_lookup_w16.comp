// Port of embed_lookup_w16, 01_embedding.wgsl (its llm.istanbul study,
// "embed_lookup_w16 Difference"). Line-by-line; same group/binding/access as the WGSL.
// f16 as WGSL's `enable f16` maps it (R22): explicit float16_t arithmetic type plus 16-bit
// storage, i.e. Vulkan shaderFloat16 + storageBuffer16BitAccess ("shader-f16"); never mediump.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer TokensW16 { uint tokens_w16[]; };
layout(set = 0, binding = 1, std430) readonly buffer TableW16 { float16_t table_w16[]; };
layout(set = 0, binding = 2, std430) buffer OutW16 { float out_w16[]; };
layout(set = 0, binding = 3, std140) uniform DimsW16 { uvec4 dims_w16; };  // (seq_len, d_model, vocab_size, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint seq_len = dims_w16.x;
    uint d_model = dims_w16.y;
    uint vocab_size = dims_w16.z;
    uint total = seq_len * d_model;
    if (i >= total) { return; }

    uint s = i / d_model;
    uint d = i % d_model;

    uint t = tokens_w16[s];
    if (t >= vocab_size) {
        out_w16[i] = 0.0;
        return;
    }

    out_w16[i] = float(table_w16[t * d_model + d]);
}
