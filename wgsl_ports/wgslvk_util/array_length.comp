// Port of array_length, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer LenData { uint len_data[]; };

void main() {
    len_data[0] = uint(len_data.length());
}
