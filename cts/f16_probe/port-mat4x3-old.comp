// Translated from cts_mat4x3.wgsl, entry point main, by wgslvk's WGSL front end.
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
    f16mat4x3 value;
};
struct Input {
    f16mat4x3 param0;
};
struct wgsl_Input_std140 {  // Input with WGSL's layout in a uniform buffer
    f16vec3 wgsl_col0_param0;
    f16vec3 wgsl_col1_param0;
    f16vec3 wgsl_col2_param0;
    f16vec3 wgsl_col3_param0;
};

layout(set = 0, binding = 0, std430) buffer Outputs {
    Output outputs[64];
};
layout(set = 0, binding = 1, std140) uniform Inputs {
    wgsl_Input_std140 inputs[64];
};

// Loads from buffers whose layout is lowered: the WGSL values.
Input wgsl_load_Input_std140(wgsl_Input_std140 h) { return Input(f16mat4x3(h.wgsl_col0_param0, h.wgsl_col1_param0, h.wgsl_col2_param0, h.wgsl_col3_param0)); }
Input[64] wgsl_load_array1(wgsl_Input_std140 h[64]) {
    Input r[64];
    for (uint i = 0u; i < 64u; ++i) { r[i] = wgsl_load_Input_std140(h[i]); }
    return r;
}

void main() {
    for (int i = 0; i < 64; i++) {
        f16mat4x3 value = f16mat4x3(f16mat4x3(inputs[min(uint(i), 63u)].wgsl_col0_param0, inputs[min(uint(i), 63u)].wgsl_col1_param0, inputs[min(uint(i), 63u)].wgsl_col2_param0, inputs[min(uint(i), 63u)].wgsl_col3_param0));
        outputs[min(uint(i), 63u)].value[0] = value[0], outputs[min(uint(i), 63u)].value[1] = value[1], outputs[min(uint(i), 63u)].value[2] = value[2], outputs[min(uint(i), 63u)].value[3] = value[3];
    }
}
