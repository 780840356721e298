// Shared by the adafactor_multi.wgsl ports: its structs (AfHp, AfTensor) on top of
// adafactor_common.glsl's constants and helpers (the same in both WGSL files), line by line.
#ifndef WGSLVK_ADAFACTOR_MULTI_COMMON
#define WGSLVK_ADAFACTOR_MULTI_COMMON
#include "adafactor_common.glsl"

struct AfHp { AF_HP_FIELDS };

// One tensor of a batched phase; offsets in f32 elements from the start of each binding.
struct AfTensor {
    uint wg_a;      // first workgroup: 2-D the tile grid (sq_sums, update_rms, apply_2d); 1-D ema_1d
    uint wg_b;      // first workgroup: 2-D factor_ema; 1-D apply_1d
    uint decay_on;  // 1: w *= hp.decay; 0: no weight decay
    uint w;         // w and g
    uint rows;
    uint cols;
    uint nbx;
    uint nby;
    uint nparts;
    uint n;
    uint s0;        // state: 2-D row_var, 1-D v
    uint s1;        // state: 2-D col_var
    uint row_part;
    uint col_part;
    uint p_part;
    uint rms_part;
    uint rr;
    uint rc;
    uint pad0;
    uint pad1;
};

#endif
