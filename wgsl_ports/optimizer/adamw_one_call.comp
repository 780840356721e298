// Port of adamw_one_call, optimizer_native.wgsl: wgslvk's own kernel with the contract of
// the popcornAdamW_f32 specification of a fused AdamW ("Algorithm"). Line-by-line; same
// group/binding/access.
#version 450
#extension GL_GOOGLE_include_directive : require
#define WG 256
#include "wgsl.glsl"

layout(local_size_x = WG, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer ParamOc { float param_oc[]; };
layout(set = 0, binding = 1, std430) readonly buffer GradOc { float grad_oc[]; };
layout(set = 0, binding = 2, std430) buffer MOc { float m_oc[]; };
layout(set = 0, binding = 3, std430) buffer VOc { float v_oc[]; };
layout(set = 0, binding = 4, std140) uniform SizeOc { uint size_oc; };
layout(set = 0, binding = 5, std140) uniform HpOc { vec4 hp_oc; };  // (lr, beta1, beta2, weight_decay)
layout(set = 0, binding = 6, std140) uniform BcOc { vec4 bc_oc; };  // (bias_correction1, bias_correction2, eps, _)

void main() {
    uint i = flat_id(gl_GlobalInvocationID, gl_NumWorkGroups);
    if (i >= size_oc) { return; }

    float lr = hp_oc.x;
    float beta1 = hp_oc.y;
    float beta2 = hp_oc.z;
    float wd = hp_oc.w;
    float bc1 = bc_oc.x;
    float bc2 = bc_oc.y;
    float eps = bc_oc.z;

    float gr = grad_oc[i];

    // update moments
    float m_new = beta1 * m_oc[i] + (1.0 - beta1) * gr;
    float v_new = beta2 * v_oc[i] + (1.0 - beta2) * gr * gr;
    m_oc[i] = m_new;
    v_oc[i] = v_new;

    // bias-corrected estimates
    float m_hat = m_new / bc1;
    float v_hat = v_new / bc2;

    // update parameter with decoupled weight decay
    float p = param_oc[i];
    param_oc[i] = p - lr * (m_hat / (sqrt(v_hat) + eps) + wd * p);
}
