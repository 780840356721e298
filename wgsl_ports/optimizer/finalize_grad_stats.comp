// Port of finalize_grad_stats, 12_optimizer.wgsl (its llm.istanbul study,
// "2. finalize_grad_stats"). Line-by-line; same group/binding/access as the WGSL. Reads the
// accumulator and resets it to 0 in one atomicExchange (the next step's reduce starts from 0).
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 1
#include "wgsl.glsl"

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer NormSqAcc { uint norm_sq_acc; };  // f32 bits, atomic
layout(set = 0, binding = 1, std430) buffer GradStatsOut { float grad_stats_out[]; };  // [gradNorm, clipScale]
layout(set = 0, binding = 2, std140) uniform MaxGradNorm { float max_grad_norm; };

void main() {
    float sum = uintBitsToFloat(atomicExchange(norm_sq_acc, 0u));
    float grad_norm = sqrt(sum);
    float clip_scale = min(1.0, max_grad_norm / max(grad_norm, 1e-6));
    grad_stats_out[0] = grad_norm;
    grad_stats_out[1] = clip_scale;
}
