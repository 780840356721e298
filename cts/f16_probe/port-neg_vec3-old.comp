// Translated from cts_neg_vec3.wgsl, entry point main, by wgslvk's WGSL front end.
// WGSL's semantics where GLSL's differ are spelled out (helpers named wgsl_*); see
// translator/wgsl/README.md, "The GLSL it writes".
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

// glslang declares SPIR-V's Float16 capability only for some uses of float16_t (not
// for a builtin applied to a value loaded from a buffer, e.g. abs(b.x), which spirv-val
// then refuses); a private float16_t variable declares it.
float16_t wgsl_f16_capability;

struct Output {
    f16vec3 value;
};
struct Input {
    f16vec3 param0;
};

layout(set = 0, binding = 0, std430) buffer Outputs {
    Output outputs[128];
};
layout(set = 0, binding = 1, std140) uniform Inputs {
    Input inputs[128];
};

void main() {
    for (int i = 0; i < 128; i++) {
        outputs[min(uint(i), 127u)].value = -inputs[min(uint(i), 127u)].param0;
    }
}
