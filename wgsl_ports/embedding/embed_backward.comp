// Port of embed_backward, 01_embedding.wgsl (its llm.istanbul study,
// "Line by Line — embed_backward (atomic CAS-add)"). Line-by-line; same group/binding/access.
// grad_table is WGSL array<atomic<u32>> holding f32 bit patterns: the f32 add is the CAS loop
// on uint bits exactly as the seed writes it (R16). atomicLoad is the relaxed device-scope load
// Tint emits for WGSL atomicLoad (GL_KHR_memory_scope_semantics).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Tokens { uint tokens[]; };
layout(set = 0, binding = 1, std430) readonly buffer GradOut { float grad_out[]; };
layout(set = 0, binding = 2, std430) buffer GradTable { uint grad_table[]; };  // atomic<u32>
layout(set = 0, binding = 3, std140) uniform Dims { uvec4 dims; };  // (seq_len, d_model, vocab_size, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    uint seq_len = dims.x;
    uint d_model = dims.y;
    uint vocab_size = dims.z;
    uint total = seq_len * d_model;
    if (i >= total) { return; }

    uint s = i / d_model;
    uint d = i % d_model;

    uint t = tokens[s];
    if (t >= vocab_size) { return; }

    float val = grad_out[i];
    if (val == 0.0 || !is_finite(val)) { return; }
    uint dst_idx = t * d_model + d;

    uint old_bits = atomicLoad(grad_table[dst_idx], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                               gl_SemanticsRelaxed);
    for (;;) {  // WGSL loop { }
        uint new_bits = floatBitsToUint(uintBitsToFloat(old_bits) + val);
        // WGSL atomicCompareExchangeWeak: (old_value, exchanged = old_value == cmp) (R16)
        uint res_old_value = atomicCompSwap(grad_table[dst_idx], old_bits, new_bits);
        bool res_exchanged = res_old_value == old_bits;
        if (res_exchanged) { break; }
        old_bits = res_old_value;
    }
}
