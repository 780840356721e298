// WGSL semantics shared by every GLSL port (wgsl_ports/RULES.md R12, R15, R16).
// Included by each .comp after it defines WG (the workgroup size in x).
#ifndef WGSLVK_WGSL_GLSL
#define WGSLVK_WGSL_GLSL

// WGSL: fn flat_id(gid, nwg) = gid.y * nwg.x * WG + gid.x  (2-D grid for > 65535 workgroups)
uint flat_id(uvec3 gid, uvec3 nwg) { return gid.y * nwg.x * WG + gid.x; }

// WGSL has no isFinite: the engine's is_finite tests the exponent bits (R15). Never `x != x`.
bool is_finite(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }

// WGSL select(f, t, c) is c ? t : f (R14).
#define wgsl_select(f, t, c) ((c) ? (t) : (f))

#endif
