// GLSL port of scale.wgsl's `scale`: the same bindings, access modes, uniform and workgroup size.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };
layout(set = 0, binding = 1, std430) buffer Dst { float dst[]; };
layout(set = 0, binding = 2, std140) uniform Params { uint n; float scale; uint pad0; uint pad1; } params;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n) dst[i] = params.scale * src[i];
}
