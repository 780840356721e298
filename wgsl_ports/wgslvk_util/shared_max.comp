// Port of shared_max, util.wgsl (wgslvk's own helper kernels). Same group/binding/access as the WGSL.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// WGSL var<workgroup> is zero-initialised (R17); every word is written before the barrier here,
// so the port needs no separate zeroing pass.
shared uint shared_words[4096];
layout(set = 0, binding = 0, std430) buffer SharedOut { uint shared_out[]; };

void main() {
    uint lid = gl_LocalInvocationIndex;
    for (uint k = 0u; k < 16u; k = k + 1u) {
        shared_words[lid * 16u + k] = lid * 16u + k;
    }
    barrier();
    uint sum = 0u;
    for (uint k = 0u; k < 16u; k = k + 1u) {
        sum = sum + shared_words[4095u - (lid * 16u + k)];
    }
    shared_out[lid] = sum;
}
