// Port of finalize_grad_stats_partials, optimizer_native.wgsl: wgslvk's own kernel, not from the
// browser engine (the deterministic form of the llm.istanbul study of 12_optimizer.wgsl,
// "2. finalize_grad_stats"). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer PartialsIn { float partials_in[]; };
layout(set = 0, binding = 1, std430) buffer GradStatsDet { float grad_stats_det[]; };  // [gradNorm, clipScale]
layout(set = 0, binding = 2, std140) uniform MaxGradNormDet { float max_grad_norm_det; };

shared float sh_part[WG];

void main() {
    uint tid = gl_LocalInvocationIndex;
    // var<workgroup> is zero-initialized in WGSL (R17)
    sh_part[tid] = 0.0;
    barrier();

    // the bound range is exactly the written slots (R8: .length() sees the binding's size)
    uint count = uint(partials_in.length());
    float local = 0.0;
    uint k = tid;
    for (;;) {
        if (k >= count) { break; }
        local = local + partials_in[k];
        k = k + WG;
    }

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
        float sum = sh_part[0];
        float grad_norm = sqrt(sum);
        float clip_scale = min(1.0, max_grad_norm_det / max(grad_norm, 1e-6));
        grad_stats_det[0] = grad_norm;
        grad_stats_det[1] = clip_scale;
    }
}
