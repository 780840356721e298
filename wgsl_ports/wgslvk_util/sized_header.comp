// Port of sized_header, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) buffer Header {
    uvec4 a;
    uvec4 b;
    uint data[];
} sized;

void main() {
    sized.a = uvec4(1u, 2u, 3u, 4u);
    sized.data[0] = uint(sized.data.length());
}
