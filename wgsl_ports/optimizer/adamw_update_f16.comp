// Port of adamw_update_f16, 12_optimizer.wgsl (its llm.istanbul study, "Bind Group
// ABI — adamw_update_f16", fused mirroring). Line-by-line; same group/binding/access as the WGSL.
// f16 as WGSL's `enable f16` maps it (R22): explicit float16_t plus 16-bit storage; never mediump.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer WMp { float w_mp[]; };
layout(set = 0, binding = 1, std430) buffer GMp { float g_mp[]; };
layout(set = 0, binding = 2, std430) buffer MBufMp { float m_buf_mp[]; };
layout(set = 0, binding = 3, std430) buffer VBufMp { float v_buf_mp[]; };
layout(set = 0, binding = 4, std430) readonly buffer GradStatsMp { float grad_stats_mp[]; };
layout(set = 0, binding = 5, std140) uniform SizeMp { uint size_mp; };
layout(set = 0, binding = 6, std140) uniform HpMp { vec4 hp_mp; };
layout(set = 0, binding = 7, std140) uniform BiasMp { vec4 bias_mp; };
layout(set = 0, binding = 8, std430) buffer DstW16 { float16_t dst_w16[]; };

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= size_mp) { return; }

    float lr      = hp_mp.x;
    float beta1   = hp_mp.y;
    float beta2   = hp_mp.z;
    float wd      = hp_mp.w;
    float beta1_t = bias_mp.x;
    float beta2_t = bias_mp.y;
    float eps     = bias_mp.z;
    float clip    = grad_stats_mp[1];

    float grad = g_mp[i];
    grad = wgsl_select(0.0, grad, is_finite(grad));
    grad = grad * clip;

    float m_old = m_buf_mp[i];
    float v_old = v_buf_mp[i];
    float w_old = w_mp[i];

    float m_new = beta1 * m_old + (1.0 - beta1) * grad;
    float v_new = beta2 * v_old + (1.0 - beta2) * grad * grad;

    float b1_corr = 1.0 / max(1.0 - beta1_t, 1e-12);
    float b2_corr = 1.0 / max(1.0 - beta2_t, 1e-12);
    float m_hat = m_new * b1_corr;
    float v_hat = v_new * b2_corr;

    float denom = sqrt(v_hat) + eps;
    float adam_step = m_hat / denom + wd * w_old;
    float w_new = w_old - lr * adam_step;

    w_mp[i] = w_new;
    m_buf_mp[i] = m_new;
    v_buf_mp[i] = v_new;
    g_mp[i] = 0.0;
    dst_w16[i] = float16_t(w_new);  // fused mirror
}
