// Port of wg_z64, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 1, local_size_y = 1, local_size_z = 64) in;

layout(set = 0, binding = 0, std430) buffer ZOut { uint z_out[]; };

void main() {
    z_out[gl_LocalInvocationID.z] = gl_LocalInvocationID.z + 1u;
}
