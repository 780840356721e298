// Shared by the 04_loss.wgsl ports: CeParams, the workgroup arrays, ce_valid.
#ifndef WGSLVK_CE_COMMON
#define WGSLVK_CE_COMMON

const float NEG_BIG = -3.40282346638528859811704183484516925440e+38;  // lowest finite f32

#define CE_PARAMS_FIELDS \
    uint rows;           \
    uint vocab;          \
    uint ignore_index;   \
    float scale;

bool ce_valid(uint t, uint vocab, uint ignore_index) { return t < vocab && t != ignore_index; }

#endif
