// Port of adamw_update, 12_optimizer.wgsl (its llm.istanbul study,
// "Line by Line — adamw_update"). Line-by-line; same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer W { float w[]; };
layout(set = 0, binding = 1, std430) buffer G { float g[]; };
layout(set = 0, binding = 2, std430) buffer MBuf { float m_buf[]; };
layout(set = 0, binding = 3, std430) buffer VBuf { float v_buf[]; };
layout(set = 0, binding = 4, std430) readonly buffer GradStats { float grad_stats[]; };
layout(set = 0, binding = 5, std140) uniform Size { uint size; };
layout(set = 0, binding = 6, std140) uniform Hp { vec4 hp; };      // (lr, beta1, beta2, wd)
layout(set = 0, binding = 7, std140) uniform Bias { vec4 bias; };  // (beta1^t, beta2^t, eps, t)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= size) { return; }

    float lr      = hp.x;
    float beta1   = hp.y;
    float beta2   = hp.z;
    float wd      = hp.w;
    float beta1_t = bias.x;
    float beta2_t = bias.y;
    float eps     = bias.z;
    float clip    = grad_stats[1];

    float grad = g[i];
    grad = wgsl_select(0.0, grad, is_finite(grad));
    grad = grad * clip;

    float m_old = m_buf[i];
    float v_old = v_buf[i];
    float w_old = w[i];

    float m_new = beta1 * m_old + (1.0 - beta1) * grad;
    float v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

    float b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
    float b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
    float m_hat = m_new * b1_corr;
    float v_hat = v_new * b2_corr;

    float denom = sqrt(v_hat) + eps;
    float adam_step = m_hat / denom + wd * w_old;
    float w_new = w_old - lr * adam_step;

    w[i] = w_new;
    m_buf[i] = m_new;
    v_buf[i] = v_new;
    g[i] = 0.0;
}
