// Shared by the adafactor.wgsl ports: the module-scope constants, structs and helper functions of
// the WGSL, line by line (AfDims, AfHp, fin, lerp_t).
#ifndef WGSLVK_ADAFACTOR_COMMON
#define WGSLVK_ADAFACTOR_COMMON

#define TX 64u   // columns of a sub-tile (threads along x)
#define TY 4u    // thread rows
#define SR 32u   // rows of a sub-tile
#define WC 256u  // columns per workgroup tile
#define WR 128u  // rows per workgroup tile
#define TINY 1.17549435e-38  // smallest normal: rsqrt never sees 0

#define AF_DIMS_FIELDS \
    uint rows;         \
    uint cols;         \
    uint nbx;          \
    uint nby;          \
    uint nparts;       \
    uint n;            \
    uint pad0;         \
    uint pad1;

#define AF_HP_FIELDS  \
    float beta_w;     \
    float eps1;       \
    float eps1_sq;    \
    float inv_eps1;   \
    float eps2;       \
    float d;          \
    float rho;        \
    float decay;      \
    float scale_param; \
    float pad0;       \
    float pad1;       \
    float pad2;

// a non-finite gradient element counts as 0
float fin(float x) { return wgsl_select(0.0, x, is_finite(x)); }

// torch.lerp's formula: weight < 0.5 from the start, else from the end
float lerp_t(float a, float b, float w) {
    if (w < 0.5) { return a + w * (b - a); }
    return b - (b - a) * (1.0 - w);
}

#endif
