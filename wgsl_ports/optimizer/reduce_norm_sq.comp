// Port of reduce_norm_sq, 12_optimizer.wgsl (its llm.istanbul study,
// "reduce_norm_sq — Atomic Reduction"). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Data { float data[]; };
layout(set = 0, binding = 1, std430) buffer Result { uint result; };  // f32 bits, atomic
layout(set = 0, binding = 2, std140) uniform N { uint n; };

shared float sh_red[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_red[tid] = 0.0;
    barrier();

    uint grid_size = gl_NumWorkGroups.x * gl_NumWorkGroups.y * WG;
    float local = 0.0;
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    for (;;) {
        if (i >= n) { break; }
        float v = data[i];
        if (is_finite(v)) { local = local + v * v; }
        i = i + grid_size;
    }

    sh_red[tid] = local;
    barrier();
    // classical tree reduction (no subgroups)
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) { sh_red[tid] = sh_red[tid] + sh_red[tid + s]; }
        barrier();
        s = s >> 1u;
    }

    if (tid == 0u) {
        // f32 add on atomic<u32> by CAS on the bit patterns (R16)
        float add = sh_red[0];
        uint old_bits = atomicLoad(result, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
        for (;;) {
            uint new_bits = floatBitsToUint(uintBitsToFloat(old_bits) + add);
            uint res_old = atomicCompSwap(result, old_bits, new_bits);
            bool exchanged = (res_old == old_bits);
            if (exchanged) { break; }
            old_bits = res_old;
        }
    }
}
