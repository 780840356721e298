#!/usr/bin/env python3
# Writes sgmm_f16_tiled8: chromium_experimental/subgroup_matrix_tiled8.wgsl (ours) and its GLSL
# port sgmm_f16_tiled8.comp, line by line the same structure (README.md). The kernel is
# straight-line code (named result matrices and copy registers, both K halves of a step written
# out) because an array of result matrices indexed in loops went to local memory on NVIDIA's
# driver; this script keeps the two files in step. Run: python3 gen_tiled.py (from anywhere).
import os

def gen(name, sgy, lang, header):
    T = 32 * sgy; V = 1024 // T; MI = (128 // (sgy // 2)) // 16; NJ = 4
    TM = MI * 16
    W = lang == 'wgsl'
    L = []
    def o(s=''): L.append(s)
    u = lambda x: f"{x}u"
    def sel(f, t, c):  # value: c ? t : f
        return f"select({f}, {t}, {c})" if W else f"({c} ? {t} : {f})"
    decl = (lambda n, e: f"let {n} = {e};") if W else (lambda n, e: f"const uint {n} = {e};")
    declb = (lambda n, e: f"let {n} = {e};") if W else (lambda n, e: f"const bool {n} = {e};")
    LEFT = "subgroup_matrix_left<f16, 16, 16>" if W else "LEFT"
    RIGHT = "subgroup_matrix_right<f16, 16, 16>" if W else "RIGHT"
    RES = "subgroup_matrix_result<f32, 16, 16>" if W else "RESULT"
    def load(dst, typ, arr, off, cm, stride):
        if W: return f"{dst} = subgroupMatrixLoad<{typ}>(&{arr}, {off}, {'true' if cm else 'false'}, {stride});"
        return f"coopMatLoadNV({dst}, {arr}, {off}, {stride}, {'true' if cm else 'false'});"
    def store(src, arr, off, stride):
        if W: return f"subgroupMatrixStore(&{arr}, {off}, {src}, false, {stride});"
        return f"coopMatStoreNV({src}, {arr}, {off}, {stride}, false);"
    def mma(a, b, c):
        return f"{c} = subgroupMatrixMultiplyAccumulate({a}, {b}, {c});" if W else f"{c} = coopMatMulAddNV({a}, {b}, {c});"
    for l in header: o(l)
    if W:
        o("enable f16;"); o("enable chromium_experimental_subgroup_matrix;")
        o("// The subgroup's offsets derive from local_invocation_id.y, uniform in each subgroup by the")
        o("// workgroup-size rule above, which Tint's uniformity analysis does not know.")
        o("diagnostic(off, chromium.subgroup_matrix_uniformity);"); o()
        o("@group(0) @binding(0) var<storage, read> ta_in: array<vec4<f16>>;")
        o("@group(0) @binding(1) var<storage, read> tb_in: array<vec4<f16>>;")
        o("@group(0) @binding(2) var<storage, read_write> tc_out: array<f32>;")
        o("@group(0) @binding(3) var<uniform> tdims: vec4<u32>;  // (M, N, K, flags)"); o()
        o("const TRANS_A: u32 = 1u;"); o("const TRANS_B: u32 = 2u;"); o("const ACCUMULATE: u32 = 8u;")
        o("const TILE: u32 = 5120u;  // one buffer: [128][32 + 8] or [32][128 + 8] f16, as stored"); o()
        o("var<workgroup> tile_a: array<f16, 10240>;  // two A tiles")
        o("var<workgroup> tile_b: array<f16, 10240>;  // two B tiles")
        o(f"var<workgroup> tile_c: array<f32, {256*sgy}>;  // one [16][16] C tile per subgroup (edge blocks)")
    else:
        o("#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require")
        o("#extension GL_EXT_shader_16bit_storage : require")
        o("#extension GL_KHR_memory_scope_semantics : require")
        o("#extension GL_NV_cooperative_matrix : require"); o()
        o("#define LEFT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>")
        o("#define RIGHT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>")
        o("#define RESULT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>"); o()
        o(f"layout(local_size_x = 32, local_size_y = {sgy}, local_size_z = 1) in;"); o()
        o("layout(set = 0, binding = 0, std430) readonly buffer TA { f16vec4 ta_in[]; };")
        o("layout(set = 0, binding = 1, std430) readonly buffer TB { f16vec4 tb_in[]; };")
        o("layout(set = 0, binding = 2, std430) buffer TC { float tc_out[]; };")
        o("layout(set = 0, binding = 3, std140) uniform TDims { uvec4 tdims; };  // (M, N, K, flags)"); o()
        o("const uint TRANS_A = 1u;"); o("const uint TRANS_B = 2u;"); o("const uint ACCUMULATE = 8u;")
        o("const uint TILE = 5120u;  // one buffer: [128][32 + 8] or [32][128 + 8] f16, as stored"); o()
        o("shared float16_t tile_a[10240];  // two A tiles")
        o("shared float16_t tile_b[10240];  // two B tiles")
        o(f"shared float tile_c[{256*sgy}];  // one [16][16] C tile per subgroup (edge blocks)")
    o()
    for which in "ab":
        if which == "a": o("// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.")
        arr = f"t{which}_in"
        if W:
            o(f"fn fetch_{which}(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {{")
        else:
            o(f"f16vec4 fetch_{which}(uint row, uint col, uint rows, uint ld) {{")
        o("  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {")
        o(f"    return {arr}[(row * ld + col) / 4u];")
        o("  }")
        o("  var v = vec4<f16>();" if W else "  f16vec4 v = f16vec4(0.0);")
        o("  for (var e = 0u; e < 4u; e++) {" if W else "  for (uint e = 0u; e < 4u; e++) {")
        o("    if (row < rows && col + e < ld) {")
        o("      " + decl("i", "row * ld + col + e"))
        o(f"      v[e] = {arr}[i / 4u][i % 4u];")
        o("    }"); o("  }"); o("  return v;"); o("}"); o()
    # C staging helpers (edge blocks)
    o("// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.")
    if W:
        o("fn c_in(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32) {")
        o("  for (var e = lx; e < 256u; e += 32u) {")
    else:
        o("void c_in(uint base, uint lx, uint r, uint c, uint M, uint N) {")
        o("  for (uint e = lx; e < 256u; e += 32u) {")
    o("    " + decl("gr", "r + e / 16u")); o("    " + decl("gc", "c + e % 16u"))
    o("    tile_c[base + e] = 0.0;"); o("    if (gr < M && gc < N) {"); o("      tile_c[base + e] = tc_out[gr * N + gc];"); o("    }"); o("  }"); o("}"); o()
    if W:
        o("fn c_out(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32) {")
        o("  for (var e = lx; e < 256u; e += 32u) {")
    else:
        o("void c_out(uint base, uint lx, uint r, uint c, uint M, uint N) {")
        o("  for (uint e = lx; e < 256u; e += 32u) {")
    o("    " + decl("gr", "r + e / 16u")); o("    " + decl("gc", "c + e % 16u"))
    o("    if (gr < M && gc < N) {"); o("      tc_out[gr * N + gc] = tile_c[base + e];"); o("    }"); o("  }"); o("}"); o()
    if W:
        o(f"@compute @workgroup_size(32, {sgy}, 1)")
        o(f"fn {name}(@builtin(workgroup_id) wid: vec3<u32>,")
        o(f"{' ' * (len(name) + 4)}@builtin(local_invocation_id) lxy: vec3<u32>,")
        o(f"{' ' * (len(name) + 4)}@builtin(local_invocation_index) lid: u32) {{")
    else:
        o("void main() {")
        o("  const uvec3 wid = gl_WorkGroupID;"); o("  const uvec3 lxy = gl_LocalInvocationID;")
        o("  const uint lid = gl_LocalInvocationIndex;")
    I = "  "
    for n, e in [("M", "tdims.x"), ("N", "tdims.y"), ("K", "tdims.z"), ("flags", "tdims.w")]: o(I + decl(n, e))
    o(I + declb("ta", "(flags & TRANS_A) != 0u")); o(I + declb("tb", "(flags & TRANS_B) != 0u")); o()
    o(I + "// The block: dispatch order walks 8 block rows per block column.")
    for n, e in [("gx", "(N + 127u) / 128u"), ("gy", "(M + 127u) / 128u"), ("pid", "wid.y * gx + wid.x"),
                 ("grow", "(pid / (8u * gx)) * 8u"), ("rows_g", "min(gy - grow, 8u)"), ("inner", "pid % (8u * gx)"),
                 ("row0", "(grow + inner % rows_g) * 128u"), ("col0", "(inner / rows_g) * 128u")]:
        o(I + decl(n, e))
    o()
    o(I + decl("sg", "lxy.y") + f"  // this subgroup's {TM}x64 part of the block")
    o(I + decl("srow", f"(sg / 2u) * {TM}u")); o(I + decl("scol", "(sg % 2u) * 64u"))
    o(I + decl("cbase", "sg * 256u") + "  // its C tile in workgroup memory")
    o(I + declb("direct_c", "row0 + 128u <= M && col0 + 128u <= N && N % 4u == 0u")); o()
    o(I + "// The copy: the stored tile is [rows][cols] with 8 or 32 vec4s per row; invocation lid copies")
    o(I + f"// vec4s lid + {T} i, i < {V}.")
    for n, e in [("a_shift", sel("3u", "5u", "ta")), ("a_stride", sel("40u", "136u", "ta")),
                 ("a_rows", sel("M", "K", "ta")), ("a_ld", sel("K", "M", "ta")),
                 ("b_shift", sel("5u", "3u", "tb")), ("b_stride", sel("136u", "40u", "tb")),
                 ("b_rows", sel("K", "N", "tb")), ("b_ld", sel("N", "K", "tb"))]:
        o(I + decl(n, e))
    o()
    accs = [f"c{i}{j}" for i in range(MI) for j in range(NJ)]
    o(I + "// The subgroup's result matrices, named (an array indexed in loops went to local memory).")
    for c in accs:
        o(I + (f"var {c}: {RES};" if W else f"{RES} {c} = {RES}(0.0);"))
    rc = lambda i, j: (f"row0 + srow + {16*i}u", f"col0 + scol + {16*j}u")
    o(I + "if ((flags & ACCUMULATE) != 0u) {")
    o(I + "  if (direct_c) {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + "    " + load(f"c{i}{j}", RES, "tc_out", f"({r}) * N + {c}", False, "N"))
    o(I + "  } else {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            bar = "workgroupBarrier();" if W else "barrier();"
            o(I + f"    {bar}")
            o(I + f"    c_in(cbase, lxy.x, {r}, {c}, M, N);")
            o(I + f"    {bar}")
            o(I + "    " + load(f"c{i}{j}", RES, "tile_c", "cbase", False, "16u"))
    o(I + "  }"); o(I + "}"); o()
    bar = "workgroupBarrier();" if W else "barrier();"
    o(I + decl("steps", "(K + 31u) / 32u"))
    for x in "ab":
        for v in range(V):
            o(I + (f"var r{x}{v}: vec4<f16>;" if W else f"f16vec4 r{x}{v};"))
    def fetch_lines(ind, k0):
        for v in range(V):
            vv = f"lid + {T*v}u" if v else "lid"
            ra = f"(({vv}) >> a_shift)"; qa = f"((({vv}) & ((1u << a_shift) - 1u)) * 4u)"
            rb = f"(({vv}) >> b_shift)"; qb = f"((({vv}) & ((1u << b_shift) - 1u)) * 4u)"
            o(ind + f"ra{v} = fetch_a({sel('row0', k0, 'ta')} + {ra}, {sel(k0, 'row0', 'ta')} + {qa}, a_rows, a_ld);")
            o(ind + f"rb{v} = fetch_b({sel(k0, 'col0', 'tb')} + {rb}, {sel('col0', k0, 'tb')} + {qb}, b_rows, b_ld);")
    def store_lines(ind, base):
        for v in range(V):
            vv = f"lid + {T*v}u" if v else "lid"
            o(ind + decl(f"oa{v}", f"{base}(({vv}) >> a_shift) * a_stride + (({vv}) & ((1u << a_shift) - 1u)) * 4u"))
            o(ind + f"tile_a[oa{v}] = ra{v}.x;"); o(ind + f"tile_a[oa{v} + 1u] = ra{v}.y;")
            o(ind + f"tile_a[oa{v} + 2u] = ra{v}.z;"); o(ind + f"tile_a[oa{v} + 3u] = ra{v}.w;")
            o(ind + decl(f"ob{v}", f"{base}(({vv}) >> b_shift) * b_stride + (({vv}) & ((1u << b_shift) - 1u)) * 4u"))
            o(ind + f"tile_b[ob{v}] = rb{v}.x;"); o(ind + f"tile_b[ob{v} + 1u] = rb{v}.y;")
            o(ind + f"tile_b[ob{v} + 2u] = rb{v}.z;"); o(ind + f"tile_b[ob{v} + 3u] = rb{v}.w;")
    o(I + "if (steps > 0u) {  // the first K step's tiles")
    fetch_lines(I + "  ", "0u")
    store_lines(I + "  ", "")
    o(I + "}"); o(I + bar); o()
    o(I + ("for (var s = 0u; s < steps; s++) {" if W else "for (uint s = 0u; s < steps; s++) {"))
    o(I + "  " + decl("cur", "(s % 2u) * TILE")); o(I + "  " + decl("nxt", "TILE - cur"))
    o(I + "  " + declb("more", "s + 1u < steps"))
    o(I + "  if (more) {  // the next K step's tiles into registers")
    o(I + "    " + decl("k0", "(s + 1u) * 32u"))
    fetch_lines(I + "    ", "k0")
    o(I + "  }")
    for kk in (0, 16):
        o(I + f"  {{  // k {kk} .. {kk + 15} of the step")
        ind = I + "    "
        for j in range(NJ):
            o(ind + (f"var b{j}: {RIGHT};" if W else f"{RIGHT} b{j};"))
        o(ind + "if (tb) {  // [n][k]: column-major")
        for j in range(NJ):
            o(ind + "  " + load(f"b{j}", RIGHT, "tile_b", f"cur + (scol + {16*j}u) * 40u + {kk}u", True, "40u"))
        o(ind + "} else {  // [k][n]")
        for j in range(NJ):
            o(ind + "  " + load(f"b{j}", RIGHT, "tile_b", f"cur + {kk*136}u + scol + {16*j}u", False, "136u"))
        o(ind + "}")
        o(ind + (f"var a: {LEFT};" if W else f"{LEFT} a;"))
        for i in range(MI):
            o(ind + "if (ta) {  // [k][m]: column-major")
            o(ind + "  " + load("a", LEFT, "tile_a", f"cur + {kk*136}u + srow + {16*i}u", True, "136u"))
            o(ind + "} else {  // [m][k]")
            o(ind + "  " + load("a", LEFT, "tile_a", f"cur + (srow + {16*i}u) * 40u + {kk}u", False, "40u"))
            o(ind + "}")
            for j in range(NJ):
                o(ind + mma("a", f"b{j}", f"c{i}{j}"))
        o(I + "  }")
    o(I + "  if (more) {  // into the other buffer, last read in the step before this one")
    store_lines(I + "    ", "nxt + ")
    o(I + "  }")
    o(I + "  " + bar)
    o(I + "}"); o()
    o(I + "if (direct_c) {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + "  " + store(f"c{i}{j}", "tc_out", f"({r}) * N + {c}", "N"))
    o(I + "} else {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + f"  {bar}")
            o(I + "  " + store(f"c{i}{j}", "tile_c", "cbase", "16u"))
            o(I + f"  {bar}")
            o(I + f"  c_out(cbase, lxy.x, {r}, {c}, M, N);")
    o(I + "}")
    o("}")
    return "\n".join(L) + "\n"


HERE = os.path.dirname(os.path.abspath(__file__))
WGSL_HEADER = "// wgslvk's own WGSL (not from the seeds): a tiled f16-input, f32-accumulating matmul on Dawn's\n// chromium-experimental-subgroup-matrix, written out as straight-line code by gen_tiled.py (no\n// arrays of matrices: an array of result matrices indexed in loops went to local memory on\n// NVIDIA). Same product and flags as sgmm_f16 (subgroup_matrix.wgsl): C[M,N] (+)= op(A)[M,K]\n// op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]), ACCUMULATE 8.\n// One workgroup = 8 subgroups of 32 (workgroup (32, 8, 1): Dawn's rule that x is a multiple of\n// the subgroup size makes local_invocation_id.y the subgroup's index) computes a 128x128 block of\n// C; each subgroup owns a 32x64 part as 2x4 16x16 result matrices (each left matrix it loads is\n// used 4 times, each right one twice).\n// K advances 32 at a time: all invocations copy the next A and B tiles (128x32 and 32x128 f16, as\n// stored, 8-byte vec4<f16> loads) into registers while the subgroups multiply the current ones\n// out of workgroup memory, then store them into the other half of a double buffer: one barrier\n// per K step. Rows of the tiles are padded by 8 f16 (16 bytes) so the 16-byte rows a subgroup\n// matrix load reads fall in distinct banks. Zeros are staged outside the operands (edge blocks,\n// the last partial K step, strides that are not multiples of 4 elements: element by element\n// there), so every block runs the same code; C is loaded and stored as result matrices straight\n// from the buffer when the block is inside C and N is a multiple of 4, else element by element\n// through workgroup memory, inside its bounds. Blocks are visited in groups of 8 block rows so\n// that the blocks running together share their A rows and B columns in the L2 cache.\n// Workgroup memory: 49,152 bytes (2 x 2 x 10,240 for the tiles, 8,192 for C at the edges): more\n// than WebGPU's default maxComputeWorkgroupStorageSize (16,384); the device must be requested\n// with it (Dawn on the H200 offers 49,152 and accepts it).\n// A and B are read as vec4<f16>: their buffers hold whole vec4s (pad with zeros to a multiple of\n// 8 bytes). Dispatch (ceil(N / 128), ceil(M / 128), 1). Port: sgmm_f16_tiled8.comp (README.md).\n"
GLSL_HEADER = '#version 450\n// Port of chromium_experimental/subgroup_matrix_tiled8.wgsl: sgmm_f16_tiled8 (ours), line by line, with\n// GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time\n// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16.comp.\n// subgroup_matrix_left/right<f16, 16, 16> are LEFT/RIGHT, subgroup_matrix_result<f32, 16, 16>\n// RESULT; subgroupMatrixLoad/Store are coopMatLoadNV/coopMatStoreNV (offset and stride in\n// elements, the same column-major flag), subgroupMatrixMultiplyAccumulate is coopMatMulAddNV.\n'

if __name__ == "__main__":
    with open(os.path.join(HERE, "chromium_experimental", "subgroup_matrix_tiled8.wgsl"), "w") as f:
        f.write(gen("sgmm_f16_tiled8", 8, "wgsl", WGSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "sgmm_f16_tiled8.comp"), "w") as f:
        f.write(gen("sgmm_f16_tiled8", 8, "glsl", GLSL_HEADER.splitlines()))
