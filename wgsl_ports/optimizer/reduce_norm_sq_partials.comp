// Port of reduce_norm_sq_partials, optimizer_native.wgsl: wgslvk's own kernel, not from the
// browser engine (the deterministic form of the llm.istanbul study of 12_optimizer.wgsl,
// "reduce_norm_sq — Atomic Reduction"). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer DataDet { float data_det[]; };
layout(set = 0, binding = 1, std430) buffer Partials { float partials[]; };  // one slot per workgroup
layout(set = 0, binding = 2, std140) uniform NDet { uint n_det; };

shared float sh_part[WG];

float sq_finite(float v) { return wgsl_select(0.0, v * v, is_finite(v)); }

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_part[tid] = 0.0;
    barrier();

    uint grid_size = gl_NumWorkGroups.x * gl_NumWorkGroups.y * WG;
    vec4 acc = vec4(0.0);
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    for (;;) {
        if (i + 3u * grid_size >= n_det) { break; }
        float a = data_det[i];
        float b = data_det[i + grid_size];
        float c = data_det[i + 2u * grid_size];
        float d = data_det[i + 3u * grid_size];
        acc = acc + vec4(sq_finite(a), sq_finite(b), sq_finite(c), sq_finite(d));
        i = i + 4u * grid_size;
    }
    for (;;) {
        if (i >= n_det) { break; }
        acc.x = acc.x + sq_finite(data_det[i]);
        i = i + grid_size;
    }
    float local = (acc.x + acc.y) + (acc.z + acc.w);

    sh_part[tid] = local;
    barrier();
    uint s = WG / 2u;
    for (;;) {
        if (s == 0u) { break; }
        if (tid < s) { sh_part[tid] = sh_part[tid] + sh_part[tid + s]; }
        barrier();
        s = s >> 1u;
    }

    if (tid == 0u) {
        partials[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = sh_part[0];
    }
}
