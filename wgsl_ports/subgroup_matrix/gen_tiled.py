#!/usr/bin/env python3
# Writes sgmm_f16_tiled8: chromium_experimental/subgroup_matrix_tiled8.wgsl (ours) and its GLSL
# port sgmm_f16_tiled8.comp, line by line the same structure (README.md), and sgmm_f16_tiled8_d2
# (subgroup_matrix_tiled8_d2.wgsl, sgmm_f16_tiled8_d2.comp; gen_nat). --sweep: the measurement
# variants of gen_nat into sweep/ (README "Sweep"; built with -DWGSLVK_SGMM_SWEEP=ON only). The kernel is
# straight-line code (named result matrices and copy registers, both K halves of a step written
# out) because an array of result matrices indexed in loops went to local memory on NVIDIA's
# driver; this script keeps the two files in step. Run: python3 gen_tiled.py (from anywhere).
import os

def syntax(W, U4):
    """The two languages' spellings, shared by both generators: WGSL with Dawn's subgroup-matrix
    builtins (W) or GLSL with GL_NV_cooperative_matrix (U4: tiles read as uvec4 in the GLSL)."""
    def sel(f, t, c):  # value: c ? t : f
        return f"select({f}, {t}, {c})" if W else f"({c} ? {t} : {f})"
    decl = (lambda n, e: f"let {n} = {e};") if W else (lambda n, e: f"const uint {n} = {e};")
    declb = (lambda n, e: f"let {n} = {e};") if W else (lambda n, e: f"const bool {n} = {e};")
    LEFT = "subgroup_matrix_left<f16, 16, 16>" if W else "LEFT"
    RIGHT = "subgroup_matrix_right<f16, 16, 16>" if W else "RIGHT"
    RES = "subgroup_matrix_result<f32, 16, 16>" if W else "RESULT"
    bar = "workgroupBarrier();" if W else "barrier();"
    def load(dst, typ, arr, off, cm, stride):
        if W: return f"{dst} = subgroupMatrixLoad<{typ}>(&{arr}, {off}, {'true' if cm else 'false'}, {stride});"
        if U4 and arr in ("tile_a", "tile_b"):
            off, stride = f"({off}) / 8u", f"{int(stride.rstrip('u')) // 8}u"
        return f"coopMatLoadNV({dst}, {arr}, {off}, {stride}, {'true' if cm else 'false'});"
    def store(src, arr, off, stride):
        if W: return f"subgroupMatrixStore(&{arr}, {off}, {src}, false, {stride});"
        return f"coopMatStoreNV({src}, {arr}, {off}, {stride}, false);"
    def mma(a, b, c):
        return f"{c} = subgroupMatrixMultiplyAccumulate({a}, {b}, {c});" if W else f"{c} = coopMatMulAddNV({a}, {b}, {c});"
    return sel, decl, declb, LEFT, RIGHT, RES, bar, load, store, mma


def gen(name, sgy, lang, header):
    U4 = False
    T = 32 * sgy; V = 1024 // T; MI = (128 // (sgy // 2)) // 16; NJ = 4
    TM = MI * 16
    W = lang == 'wgsl'
    L = []
    def o(s=''): L.append(s)
    u = lambda x: f"{x}u"
    sel, decl, declb, LEFT, RIGHT, RES, bar, load, store, mma = syntax(W, U4)
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
            o(I + f"    {bar}")
            o(I + f"    c_in(cbase, lxy.x, {r}, {c}, M, N);")
            o(I + f"    {bar}")
            o(I + "    " + load(f"c{i}{j}", RES, "tile_c", "cbase", False, "16u"))
    o(I + "  }"); o(I + "}"); o()
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


# ---- "natural" layout kernels (sgmm_f16_nat*): one workgroup-memory layout for every flag --------
# A is kept in workgroup memory as [m][k] and B as [n][k] whatever the flags: an operand stored
# the other way round is transposed while it is copied (each invocation fetches a 4x4 block, four
# vec4<f16> of consecutive stored rows, and writes it as four rows of four consecutive k), so the
# subgroup-matrix loads of the inner loop are the same for every flag (left row-major, right
# column-major) and the loop has no branches.
def gen_nat(name, cfg, lang, header):
    SGM, SGN, MI, NJ, BK, STAGES = (cfg[k] for k in ("SGM", "SGN", "MI", "NJ", "BK", "STAGES"))
    abl = cfg.get("ABL", "")
    U4 = cfg.get("U4", False) and lang != 'wgsl'  # GLSL only: the WGSL keeps array<f16>
    # WS: producer subgroups (warp specialization, sweep): WS more subgroups only copy the tiles
    # while the SGM x SGN others only multiply, one barrier a step between them
    WS = cfg.get("WS", 0)
    NC = SGM * SGN  # the subgroups that multiply
    sgy = NC + WS; T = 32 * (WS or NC)  # T: the invocations that copy
    CID = "cid" if WS else "lid"  # a copying invocation's index
    TM, TN = 16 * MI, 16 * NJ
    BM, BN = SGM * TM, SGN * TN
    PAD = cfg.get("PAD", 8)  # f16 of padding after each tile row (8: 16 bytes; sweep: bank-conflict probe)
    S = BK + PAD  # row stride of a tile in f16: 16-byte rows, padded by 16 bytes
    TA, TB = BM * S, BN * S
    KQ = BK // 4
    W = lang == 'wgsl'
    L = []
    def o(s=''): L.append(s)
    sel, decl, declb, LEFT, RIGHT, RES, bar, load, store, mma = syntax(W, U4)
    cons = (lambda st: f"if (sg < {NC}u) {{ {st} }}") if WS else (lambda st: st)  # WS: multipliers only
    def p2(x):
        assert x & (x - 1) == 0, x
        return x.bit_length() - 1
    # per-invocation copy counts: vec4s of each tile, and 4x4 blocks when transposed
    VA, VB = BM * BK // 4 // T, BN * BK // 4 // T
    assert VA * T * 4 == BM * BK and VB * T * 4 == BN * BK, cfg
    # transposed copies move 4x4 blocks (four vec4s an invocation): V = 2 (a 64-wide side of a
    # 256-invocation workgroup) leaves the upper half of the invocations without a block
    assert all(v % 4 == 0 or v == 2 for v in (VA, VB)), cfg
    # U16: A and B bound as 16-byte words; the direct (not transposed) fast path loads two
    # consecutive vec4<f16> of a row as one word (measurement variant)
    U16 = cfg.get("U16", False)
    assert not U16 or (VA % 2 == 0 and VB % 2 == 0 and not cfg.get("BATCH", False) and not U4)
    SK = cfg.get("SK", 1)  # split-K ablation (timing only): workgroup z takes the z-th K chunk
    BT = cfg.get("BATCH", False)  # batched: workgroup z = one product of a batch (README "sgmm_f16_batched")
    assert not (BT and SK > 1)
    assert BM >= 64 and BN >= 64 and BK >= 16 and BK % 16 == 0
    GRP = cfg.get("GRP", 8)  # block rows a group of the dispatch order walks (L2 reuse)
    # transposed copies: the 32 lanes of a subgroup take KL consecutive k-quads (8 for BK >= 32)
    # and RL consecutive quads of the other side
    KB = min(3, p2(BK // 4)); KL, RL = 1 << KB, 1 << (5 - KB)
    for l in header: o(l)
    if W:
        o("enable f16;"); o("enable chromium_experimental_subgroup_matrix;")
        o("// The subgroup's offsets derive from local_invocation_id.y, uniform in each subgroup by the")
        o("// workgroup-size rule above, which Tint's uniformity analysis does not know.")
        o("diagnostic(off, chromium.subgroup_matrix_uniformity);"); o()
        if U16:
            o("// A and B as 16-byte words (the same bytes as array<vec4<f16>>; the buffers hold whole words)")
            o("@group(0) @binding(0) var<storage, read> ta_in: array<vec4<u32>>;")
            o("@group(0) @binding(1) var<storage, read> tb_in: array<vec4<u32>>;")
        else:
            o("@group(0) @binding(0) var<storage, read> ta_in: array<vec4<f16>>;")
            o("@group(0) @binding(1) var<storage, read> tb_in: array<vec4<f16>>;")
        o("@group(0) @binding(2) var<storage, read_write> tc_out: array<f32>;")
        if BT:
            for l in BATCH_WGSL_UNIFORM.splitlines(): o(l)
            o()
        else:
            o("@group(0) @binding(3) var<uniform> tdims: vec4<u32>;  // (M, N, K, flags)"); o()
        o("const TRANS_A: u32 = 1u;"); o("const TRANS_B: u32 = 2u;"); o("const ACCUMULATE: u32 = 8u;"); o()
        o(f"var<workgroup> tile_a: array<f16, {STAGES * TA}>;  // {STAGES} x A [{BM}][{BK} + {PAD}]")
        o(f"var<workgroup> tile_b: array<f16, {STAGES * TB}>;  // {STAGES} x B [{BN}][{BK} + {PAD}] (n, k)")
        o(f"var<workgroup> tile_c: array<f32, {256*NC}>;  // one [16][16] C tile per subgroup (edge blocks)")
    else:
        o("#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require")
        o("#extension GL_EXT_shader_16bit_storage : require")
        o("#extension GL_KHR_memory_scope_semantics : require")
        o("#extension GL_NV_cooperative_matrix : require"); o()
        o("#define LEFT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>")
        o("#define RIGHT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>")
        o("#define RESULT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>"); o()
        o(f"layout(local_size_x = 32, local_size_y = {sgy}, local_size_z = 1) in;"); o()
        if U16:
            o("// A and B as 16-byte words (the same bytes as f16vec4[]; the buffers hold whole words)")
            o("layout(set = 0, binding = 0, std430) readonly buffer TA { uvec4 ta_in[]; };")
            o("layout(set = 0, binding = 1, std430) readonly buffer TB { uvec4 tb_in[]; };")
        else:
            o("layout(set = 0, binding = 0, std430) readonly buffer TA { f16vec4 ta_in[]; };")
            o("layout(set = 0, binding = 1, std430) readonly buffer TB { f16vec4 tb_in[]; };")
        o("layout(set = 0, binding = 2, std430) buffer TC { float tc_out[]; };")
        if BT:
            for l in BATCH_GLSL_UNIFORM.splitlines(): o(l)
            o()
        else:
            o("layout(set = 0, binding = 3, std140) uniform TDims { uvec4 tdims; };  // (M, N, K, flags)"); o()
        o("const uint TRANS_A = 1u;"); o("const uint TRANS_B = 2u;"); o("const uint ACCUMULATE = 8u;"); o()
        if U4:
            o("// The tiles as 16-byte words (the WGSL's array<f16>, the same bytes): offsets and strides")
            o("// of the loads in uvec4s, stores of f16 pairs packed in 32-bit words.")
            o(f"shared uvec4 tile_a[{STAGES * TA // 8}];  // {STAGES} x A [{BM}][{BK} + {PAD}] f16")
            o(f"shared uvec4 tile_b[{STAGES * TB // 8}];  // {STAGES} x B [{BN}][{BK} + {PAD}] f16 (n, k)")
        else:
            o(f"shared float16_t tile_a[{STAGES * TA}];  // {STAGES} x A [{BM}][{BK} + {PAD}]")
            o(f"shared float16_t tile_b[{STAGES * TB}];  // {STAGES} x B [{BN}][{BK} + {PAD}] (n, k)")
        o(f"shared float tile_c[{256*NC}];  // one [16][16] C tile per subgroup (edge blocks)")
    o()
    for which in "ab" if U16 else ():
        arr = f"t{which}_in"
        if which == "a": o("// vec4<f16> j and f16 i of the operand's 16-byte words.")
        if W:
            o(f"fn quad_{which}(j: u32) -> vec4<f16> {{")
            o(f"  let u = {arr}[j / 2u];")
            o("  return bitcast<vec4<f16>>(select(u.xy, u.zw, (j & 1u) == 1u));")
            o("}")
            o(f"fn half_{which}(i: u32) -> f16 {{")
            o(f"  let p = bitcast<vec2<f16>>({arr}[i / 8u][(i / 2u) % 4u]);")
            o("  return select(p.x, p.y, (i & 1u) == 1u);")
            o("}")
        else:
            o(f"f16vec4 quad_{which}(uint j) {{")
            o(f"  const uvec4 u = {arr}[j / 2u];")
            o("  const uvec2 h = ((j & 1u) == 1u) ? u.zw : u.xy;")
            o("  return f16vec4(unpackFloat2x16(h.x), unpackFloat2x16(h.y));")
            o("}")
            o(f"float16_t half_{which}(uint i) {{")
            o(f"  const f16vec2 p = unpackFloat2x16({arr}[i / 8u][(i / 2u) % 4u]);")
            o("  return ((i & 1u) == 1u) ? p.y : p.x;")
            o("}")
        o()
    for which in "ab" if not BT else ():
        if which == "a": o("// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix, zeros outside it.")
        arr = f"t{which}_in"
        o(f"fn fetch_{which}(row: u32, col: u32, rows: u32, ld: u32) -> vec4<f16> {{" if W else
          f"f16vec4 fetch_{which}(uint row, uint col, uint rows, uint ld) {{")
        o("  if (row < rows && col + 4u <= ld && ld % 4u == 0u) {")
        o(f"    return quad_{which}((row * ld + col) / 4u);" if U16 else f"    return {arr}[(row * ld + col) / 4u];")
        o("  }")
        o("  var v = vec4<f16>();" if W else "  f16vec4 v = f16vec4(0.0);")
        # unrolled: a dynamically indexed vector went to local memory
        for e in range(4):
            o(f"  if (row < rows && col + {e}u < ld) {{")
            o("    " + decl(f"i{e}", f"row * ld + col + {e}u"))
            o(f"    v.{'xyzw'[e]} = half_{which}(i{e});" if U16 else f"    v.{'xyzw'[e]} = {arr}[i{e} / 4u][i{e} % 4u];")
            o("  }")
        o("  return v;"); o("}"); o()
    for which in "ab" if BT else ():
        if which == "a":
            o("// Four elements (row, col .. col + 3) of a stored [rows][ld] f16 matrix whose row r starts at")
            o("// element base + r * rs of the buffer, zeros outside it.")
        arr = f"t{which}_in"
        o(f"fn fetch_{which}(base: u32, row: u32, col: u32, rows: u32, ld: u32, rs: u32) -> vec4<f16> {{" if W else
          f"f16vec4 fetch_{which}(uint base, uint row, uint col, uint rows, uint ld, uint rs) {{")
        o("  " + decl("i", "base + row * rs + col"))
        o("  if (row < rows && col + 4u <= ld && i % 4u == 0u) {")
        o(f"    return {arr}[i / 4u];")
        o("  }")
        o("  var v = vec4<f16>();" if W else "  f16vec4 v = f16vec4(0.0);")
        for e in range(4):
            o(f"  if (row < rows && col + {e}u < ld) {{")
            o("    " + decl(f"i{e}", f"i + {e}u"))
            o(f"    v.{'xyzw'[e]} = {arr}[i{e} / 4u][i{e} % 4u];")
            o("  }")
        o("  return v;"); o("}"); o()
    o("// Edge blocks: C tile (r, c) of this subgroup between the buffer and workgroup memory, inside C.")
    ci = "cb + gr * ldc + gc" if BT else "gr * N + gc"
    for fn, body in (("c_in", ["tile_c[base + e] = 0.0;", "if (gr < M && gc < N) {", f"  tile_c[base + e] = tc_out[{ci}];", "}"]),
                     ("c_out", ["if (gr < M && gc < N) {", f"  tc_out[{ci}] = tile_c[base + e];", "}"])):
        if W:
            o(f"fn {fn}(base: u32, lx: u32, r: u32, c: u32, M: u32, N: u32" + (", cb: u32, ldc: u32" if BT else "") + ") {")
            o("  for (var e = lx; e < 256u; e += 32u) {")
        else:
            o(f"void {fn}(uint base, uint lx, uint r, uint c, uint M, uint N" + (", uint cb, uint ldc" if BT else "") + ") {")
            o("  for (uint e = lx; e < 256u; e += 32u) {")
        o("    " + decl("gr", "r + e / 16u")); o("    " + decl("gc", "c + e % 16u"))
        for b in body: o("    " + b)
        o("  }"); o("}"); o()
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
    tdm = "tdims.mnkf" if BT else "tdims"
    for n, e in [("M", f"{tdm}.x"), ("N", f"{tdm}.y"), ("K", f"{tdm}.z"), ("flags", f"{tdm}.w")]: o(I + decl(n, e))
    o(I + declb("ta", "(flags & TRANS_A) != 0u")); o(I + declb("tb", "(flags & TRANS_B) != 0u")); o()
    if BT:
        o(I + "// This workgroup's product of the batch: z = outer index * inner count + inner index.")
        for n, e in [("bo", "wid.z / tdims.ld.w"), ("bi", "wid.z % tdims.ld.w"),
                     ("a_base", "tdims.off.x + bo * tdims.ab.x + bi * tdims.ab.y"),
                     ("b_base", "tdims.off.y + bo * tdims.ab.z + bi * tdims.ab.w"),
                     ("c_base", "tdims.off.z + bo * tdims.cb.x + bi * tdims.cb.y"),
                     ("a_rs", "tdims.ld.x"), ("b_rs", "tdims.ld.y"), ("ldc", "tdims.ld.z")]:
            o(I + decl(n, e))
        o(I + declb("a_al", "a_rs % 4u == 0u && a_base % 4u == 0u") + "  // rows of whole vec4<f16>s")
        o(I + declb("b_al", "b_rs % 4u == 0u && b_base % 4u == 0u"))
        o()
    o(I + f"// The block: dispatch order walks {GRP} block rows per block column.")
    for n, e in [("gx", f"(N + {BN-1}u) / {BN}u"), ("gy", f"(M + {BM-1}u) / {BM}u"), ("pid", "wid.y * gx + wid.x"),
                 ("grow", f"(pid / ({GRP}u * gx)) * {GRP}u"), ("rows_g", f"min(gy - grow, {GRP}u)"), ("inner", f"pid % ({GRP}u * gx)"),
                 ("row0", f"(grow + inner % rows_g) * {BM}u"), ("col0", f"(inner / rows_g) * {BN}u")]:
        o(I + decl(n, e))
    o()
    o(I + decl("sg", "lxy.y") + f"  // this subgroup's {TM}x{TN} part of the block")
    o(I + decl("srow", f"(sg / {SGN}u) * {TM}u")); o(I + decl("scol", f"(sg % {SGN}u) * {TN}u"))
    o(I + decl("cbase", "sg * 256u") + "  // its C tile in workgroup memory")
    if WS:
        o(I + decl("cid", f"lid - {32 * NC}u") + "  // producers: the copy's invocation index")
    o(I + declb("direct_c", f"row0 + {BM}u <= M && col0 + {BN}u <= N && " +
                ("ldc % 4u == 0u && c_base % 4u == 0u" if BT else "N % 4u == 0u")))
    for n, e in [("a_rows", sel("M", "K", "ta")), ("a_ld", sel("K", "M", "ta")),
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
            o(I + "    " + cons(load(f"c{i}{j}", RES, "tc_out", f"c_base + ({r}) * ldc + {c}" if BT else f"({r}) * N + {c}", False, "ldc" if BT else "N")))
    o(I + "  } else {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + f"    {bar}"); o(I + "    " + cons(f"c_in(cbase, lxy.x, {r}, {c}, M, N{', c_base, ldc' if BT else ''});")); o(I + f"    {bar}")
            o(I + "    " + cons(load(f"c{i}{j}", RES, "tile_c", "cbase", False, "16u")))
    o(I + "  }"); o(I + "}"); o()
    if SK > 1:  # ablation: each workgroup z multiplies one K chunk and stores it as the whole product
        o(I + decl("kchunk", f"((K + {SK * BK - 1}u) / {SK * BK}u) * {BK}u"))
        o(I + decl("kb", "wid.z * kchunk"))
        o(I + decl("steps", f"(min(K, kb + kchunk) - min(K, kb) + {BK-1}u) / {BK}u"))
    else:
        o(I + decl("steps", f"(K + {BK-1}u) / {BK}u"))
    D = cfg.get("D", 1)
    BF = cfg.get("BF", False)  # D 2: a branch-free loop where the rows are whole vec4s (README)
    G = cfg.get("G", False)  # D = 2 through the general (D >= 3) loop
    for rs in ["" if d == 0 else f"_{d}" for d in range(D)]:
        for x, V in (("a", VA), ("b", VB)):
            for v in range(max(V, 4)):  # BF stores registers never fetched when K <= BK: zeros (WGSL's var)
                o(I + (f"var r{x}{v}{rs}: vec4<f16>;" if W else f"f16vec4 r{x}{v}{rs}{' = f16vec4(0.0)' if BF else ''};"))
    # The copy of one operand. Not transposed (stored [r][k]): vec4 q = lid + T v is row
    # q / (BK/4), k 4 (q % (BK/4)). Transposed (stored [k][r]): block q = lid + T b covers stored
    # rows k0 + 4 kq + (0..3), columns r0 + 4 r4 + (0..3); the 32 invocations of a subgroup take 8
    # consecutive kq and 4 consecutive r4 (the transposed rows they write fill the banks).
    FP = cfg.get("FP", False)  # a block-uniform fast path: the whole tile inside, no per-vec4 checks
    def fetch_lines(ind, k0, rs=""):
        if SK > 1:
            k0 = f"kb + {k0}"
        for x, V, R, rr, direct in (("a", VA, BM, "row0", "!ta"), ("b", VB, BN, "col0", "tb")):
            arr = f"t{x}_in"
            al = f"{x}_al" if BT else f"{x}_ld % 4u == 0u"  # the fast path's alignment test
            rsv = f"{x}_rs" if BT else f"{x}_ld"  # the stored row stride
            bpre = f"{x}_base + " if BT else ""
            fa0 = f"{x}_base, " if BT else ""  # fetch_x's extra arguments
            fa1 = f", {x}_rs" if BT else ""
            o(ind + f"if ({direct}) {{  // stored [{'m' if x == 'a' else 'n'}][k]")
            if FP and U16:  # invocation lid + T w: row (..) >> log2(KQ / 2), k 8 ((..) % (KQ / 2)): registers 2w, 2w + 1
                o(ind + "  if (" + f"{rr} + {R}u <= {x}_rows && {k0} + {BK}u <= {x}_ld && {x}_ld % 8u == 0u) {{  // inside, whole words")
                for w in range(V // 2):
                    q = f"{CID} + {T*w}u" if w else CID
                    o(ind + "    {")
                    if W:
                        o(ind + f"      let u = {arr}[(({rr} + (({q}) >> {p2(KQ // 2)}u)) * {rsv} + {k0} + (({q}) & {KQ // 2 - 1}u) * 8u) / 8u];")
                        o(ind + f"      r{x}{2*w}{rs} = bitcast<vec4<f16>>(u.xy);")
                        o(ind + f"      r{x}{2*w+1}{rs} = bitcast<vec4<f16>>(u.zw);")
                    else:
                        o(ind + f"      const uvec4 u = {arr}[(({rr} + (({q}) >> {p2(KQ // 2)}u)) * {rsv} + {k0} + (({q}) & {KQ // 2 - 1}u) * 8u) / 8u];")
                        o(ind + f"      r{x}{2*w}{rs} = f16vec4(unpackFloat2x16(u.x), unpackFloat2x16(u.y));")
                        o(ind + f"      r{x}{2*w+1}{rs} = f16vec4(unpackFloat2x16(u.z), unpackFloat2x16(u.w));")
                    o(ind + "    }")
                o(ind + "  } else {")
            elif FP:
                o(ind + "  if (" + f"{rr} + {R}u <= {x}_rows && {k0} + {BK}u <= {x}_ld && {al}) {{  // inside")
                for v in range(V):
                    q = f"{CID} + {T*v}u" if v else CID
                    o(ind + f"    r{x}{v}{rs} = {arr}[({bpre}({rr} + (({q}) >> {p2(KQ)}u)) * {rsv} + {k0} + (({q}) & {KQ-1}u) * 4u) / 4u];")
                o(ind + "  } else {")
            for v in range(V):
                if U16:
                    q = f"{CID} + {T*(v // 2)}u" if v // 2 else CID
                    o(ind + ("  " if FP else "") + f"  r{x}{v}{rs} = fetch_{x}({rr} + (({q}) >> {p2(KQ // 2)}u), {k0} + (({q}) & {KQ // 2 - 1}u) * 8u{' + 4u' if v % 2 else ''}, {x}_rows, {x}_ld);")
                    continue
                q = f"{CID} + {T*v}u" if v else CID
                o(ind + ("  " if FP else "") + f"  r{x}{v}{rs} = fetch_{x}({fa0}{rr} + (({q}) >> {p2(KQ)}u), {k0} + (({q}) & {KQ-1}u) * 4u, {x}_rows, {x}_ld{fa1});")
            if FP:
                o(ind + "  }")
            o(ind + f"}} else {{  // stored [k][{'m' if x == 'a' else 'n'}]: 4x4 blocks")
            RQ4 = R // (4 * RL)
            if V == 2:
                o(ind + f"  if ({CID} < {T // 2}u) {{  // {R * BK // 16} blocks")
                ind += "  "
            for b in range(max(V // 4, 1)):
                q = f"{CID} + {T*b}u" if b else CID
                o(ind + "  " + decl(f"{x}r{b}", f"((({q}) >> 5u) & {RQ4-1}u) * {RL}u + ((({q}) >> {KB}u) & {RL-1}u)"))
                o(ind + "  " + decl(f"{x}k{b}", f"(({q}) >> {5 + p2(RQ4)}u) * {KL}u + (({q}) & {KL-1}u)"))
            if FP:
                o(ind + "  if (" + f"{k0} + {BK}u <= {x}_rows && {rr} + {R}u <= {x}_ld && {al}) {{  // inside")
                for b in range(max(V // 4, 1)):
                    for r in range(4):
                        if U16:
                            o(ind + f"    r{x}{4*b+r}{rs} = quad_{x}((({k0} + {x}k{b} * 4u + {r}u) * {rsv} + {rr} + {x}r{b} * 4u) / 4u);")
                            continue
                        o(ind + f"    r{x}{4*b+r}{rs} = {arr}[({bpre}({k0} + {x}k{b} * 4u + {r}u) * {rsv} + {rr} + {x}r{b} * 4u) / 4u];")
                o(ind + "  } else {")
            for b in range(max(V // 4, 1)):
                for r in range(4):
                    o(ind + ("  " if FP else "") + f"  r{x}{4*b+r}{rs} = fetch_{x}({fa0}{k0} + {x}k{b} * 4u + {r}u, {rr} + {x}r{b} * 4u, {x}_rows, {x}_ld{fa1});")
            if FP:
                o(ind + "  }")
            if V == 2:
                ind = ind[:-2]
                o(ind + "  }")
            o(ind + "}")
    def store_lines(ind, ca, cb, rs=""):
        comps = "xyzw"
        for x, V, R, base, direct in (("a", VA, BM, ca, "!ta"), ("b", VB, BN, cb, "tb")):
            arr = f"tile_{x}"
            def put2(ind2, o_, lo, hi):  # U4: f16 pair (o_, o_ + 1), o_ even, as one 32-bit word
                o(ind2 + f"{arr}[({o_}) / 8u][(({o_}) / 2u) % 4u] = packFloat2x16(f16vec2({lo}, {hi}));")
            o(ind + f"if ({direct}) {{")
            for v in range(V):
                q = f"{CID} + {T*v}u" if v else CID
                if U16:
                    q = f"{CID} + {T*(v // 2)}u" if v // 2 else CID
                    o(ind + "  " + decl(f"o{x}{v}", f"{base}(({q}) >> {p2(KQ // 2)}u) * {S}u + (({q}) & {KQ // 2 - 1}u) * 8u{' + 4u' if v % 2 else ''}"))
                else:
                    o(ind + "  " + decl(f"o{x}{v}", f"{base}(({q}) >> {p2(KQ)}u) * {S}u + (({q}) & {KQ-1}u) * 4u"))
                if U4:
                    put2(ind + "  ", f"o{x}{v}", f"r{x}{v}{rs}.x", f"r{x}{v}{rs}.y")
                    put2(ind + "  ", f"o{x}{v} + 2u", f"r{x}{v}{rs}.z", f"r{x}{v}{rs}.w")
                    continue
                for e in range(4):
                    o(ind + f"  {arr}[o{x}{v}{f' + {e}u' if e else ''}] = r{x}{v}{rs}.{comps[e]};")
            o(ind + "} else {")
            RQ4 = R // (4 * RL)
            ind0 = ind
            if V == 2:
                o(ind + f"  if ({CID} < {T // 2}u) {{")
                ind += "  "
            for b in range(max(V // 4, 1)):
                q = f"{CID} + {T*b}u" if b else CID
                o(ind + "  " + decl(f"o{x}{b}", f"{base}((((({q}) >> 5u) & {RQ4-1}u) * {RL}u + ((({q}) >> {KB}u) & {RL-1}u)) * 4u) * {S}u + ((({q}) >> {5 + p2(RQ4)}u) * {KL}u + (({q}) & {KL-1}u)) * 4u"))
                for e in range(4):  # row r4 * 4 + e of the tile: k .. k + 3 from the block's four rows
                    if U4:
                        for r in (0, 2):
                            off = e * S + r
                            put2(ind + "  ", f"o{x}{b}{f' + {off}u' if off else ''}", f"r{x}{4*b+r}{rs}.{comps[e]}", f"r{x}{4*b+r+1}{rs}.{comps[e]}")
                        continue
                    for r in range(4):
                        off = e * S + r
                        o(ind + f"  {arr}[o{x}{b}{f' + {off}u' if off else ''}] = r{x}{4*b+r}{rs}.{comps[e]};")
            if V == 2:
                o(ind0 + "  }")
            ind = ind0
            o(ind + "}")
    def compute(ind, ca, cb):
        for kk in range(0, BK, 16):
            o(ind + f"{{  // k {kk} .. {kk + 15} of the step")
            for j in range(NJ):
                o(ind + "  " + (f"var b{j}: {RIGHT};" if W else f"{RIGHT} b{j};"))
                o(ind + "  " + load(f"b{j}", RIGHT, "tile_b", f"{cb}(scol + {16*j}u) * {S}u + {kk}u", True, f"{S}u"))
            for i in range(MI):
                o(ind + "  " + (f"var a{i}: {LEFT};" if W else f"{LEFT} a{i};"))
                o(ind + "  " + load(f"a{i}", LEFT, "tile_a", f"{ca}(srow + {16*i}u) * {S}u + {kk}u", False, f"{S}u"))
            for i in range(MI):
                for j in range(NJ):
                    o(ind + "  " + mma(f"a{i}", f"b{j}", f"c{i}{j}"))
            o(ind + "}")
    def compute_nolds(ind):
        for kk in range(0, BK, 16):
            for i in range(MI):
                for j in range(NJ):
                    o(ind + mma(f"xa{i}", f"xb{j}", f"c{i}{j}"))
    no_global = abl in ("ng", "ns", "mo")
    if WS:  # producers copy step s + 1 (PD 1) or s + 2 (PD 2) while the others multiply step s
        PD = cfg.get("PD", 1)
        assert STAGES == 2 and not abl and D == 0 and PD in (1, 2) and not BT and SK == 1
        for x, V in (("a", VA), ("b", VB)):
            for v in range(max(V, 4)):
                o(I + (f"var r{x}{v}: vec4<f16>;" if W else f"f16vec4 r{x}{v};"))
        o(I + f"if (sg >= {NC}u) {{  // producers: the first K step's tiles" + (", the second's into registers" if PD == 2 else ""))
        o(I + "  if (steps > 0u) {")
        fetch_lines(I + "    ", "0u")
        store_lines(I + "    ", "", "")
        o(I + "  }")
        if PD == 2:
            o(I + "  if (steps > 1u) {")
            fetch_lines(I + "    ", f"{BK}u")
            o(I + "  }")
        o(I + "}")
        o(I + bar); o()
        o(I + ("for (var s = 0u; s < steps; s++) {" if W else "for (uint s = 0u; s < steps; s++) {"))
        J = I + "  "
        o(J + decl("cur", "s % 2u"))
        o(J + f"if (sg >= {NC}u) {{  // producers: step s + 1's tiles into the other buffer, last read in step s - 1")
        o(J + "  if (s + 1u < steps) {")
        if PD == 1:
            fetch_lines(J + "    ", f"(s + 1u) * {BK}u")
        store_lines(J + "    ", f"(1u - cur) * {TA}u + ", f"(1u - cur) * {TB}u + ")
        o(J + "  }")
        if PD == 2:
            o(J + "  if (s + 2u < steps) {  // and step s + 2's into registers")
            fetch_lines(J + "    ", f"(s + 2u) * {BK}u")
            o(J + "  }")
        o(J + "} else {")
        compute(J + "  ", f"cur * {TA}u + ", f"cur * {TB}u + ")
        o(J + "}")
        o(J + bar)
        o(I + "}"); o()
    no_stage = abl in ("ns", "mo")
    no_lds = abl in ("nl", "mo")
    if D >= 3 or (D == 2 and G):  # D register sets, the loop unrolled by D, the buffer of a step chosen at run time
        assert STAGES == 2 and not abl
        RS = lambda d: "" if d % D == 0 else f"_{d % D}"
        o(I + f"// Tiles s + {D} are fetched into registers while step s multiplies, and stored into")
        o(I + f"// workgroup memory after step s + {D - 1} has multiplied.")
        o(I + "if (steps > 0u) {  // the first K step's tiles, and the next ones' into the other registers")
        fetch_lines(I + "  ", "0u")
        store_lines(I + "  ", "", "")
        o(I + "}")
        for d in range(1, D):
            o(I + f"if (steps > {d}u) {{")
            fetch_lines(I + "  ", f"{d * BK}u", RS(d))
            o(I + "}")
        o(I + bar); o()
        o(I + (f"for (var s = 0u; s < steps; s += {D}u) {{" if W else f"for (uint s = 0u; s < steps; s += {D}u) {{"))
        for u in range(D):
            J = I + "  "
            if u:
                o(J + f"if (s + {u}u < steps) {{"); J += "  "
            o(J + f"{{  // step s + {u}: its tiles in buffer (s + {u}) % 2, register set {(u + 1) % D} holds step s + {u + 1}'s")
            K2 = J + "  "
            o(K2 + decl(f"cur{u}", f"(s + {u}u) % 2u"))
            o(K2 + f"if (s + {u + D}u < steps) {{")
            fetch_lines(K2 + "  ", f"(s + {u + D}u) * {BK}u", RS(u))
            o(K2 + "}")
            compute(K2, f"cur{u} * {TA}u + ", f"cur{u} * {TB}u + ")
            o(K2 + f"if (s + {u + 1}u < steps) {{")
            store_lines(K2 + "  ", f"(1u - cur{u}) * {TA}u + ", f"(1u - cur{u}) * {TB}u + ", RS(u + 1))
            o(K2 + "}")
            o(K2 + bar)
            o(J + "}")
            if u:
                o(I + "  }")
        o(I + "}"); o()
    if D == 2 and not G:  # two register sets: a step's tiles are fetched two steps before they are multiplied
        # ablations (timing only, wrong results): "ng" no global loads in the loop (the registers
        # keep the prologue's tiles), "nb" no barriers in the loop, "ngnb" neither
        assert STAGES == 2 and abl in ("", "ng", "nb", "ngnb")
        lbar = "" if "nb" in abl else bar
        lfetch = (lambda *a: None) if "ng" in abl else fetch_lines
        o(I + "// Tiles s + 2 are fetched into registers while step s multiplies, and stored into workgroup")
        o(I + "// memory after step s + 1 has multiplied: their loads have two steps to arrive.")
        o(I + "if (steps > 0u) {  // the first K step's tiles, and the second's into the other registers")
        fetch_lines(I + "  ", "0u")
        store_lines(I + "  ", "", "")
        o(I + "}")
        o(I + "if (steps > 1u) {")
        fetch_lines(I + "  ", f"{BK}u", "_1")
        o(I + "}")
        o(I + bar); o()
        LI = I
        if BF:  # operands with rows of whole vec4s: the branch-free loop (README "Why the K step is slow")
            assert not abl and not BT and not U16 and not U4 and SK == 1
            o(I + "// Rows of whole vec4<f16>s (the usual case): every load of the loop is unconditional")
            o(I + "// (outside the operand: index 0, value zero), so the compiler can wait for the")
            o(I + "// registers of step s + 1 without waiting for those of step s + 2 (issued after them).")
            for x, V, R, rr, tr in (("a", VA, BM, "row0", "ta"), ("b", VB, BN, "col0", "!tb")):
                RQ4 = R // (4 * RL)
                o(I + decl(f"{x}_dr", sel("0u", f"{BK}u", tr)) + f"  // per K step: stored rows, columns")
                o(I + decl(f"{x}_dc", sel(f"{BK}u", "0u", tr)))
                for v in range(max(V, 4)):
                    q = f"{CID} + {T*v}u" if v else CID
                    dr_ = f"{rr} + (({q}) >> {p2(KQ)}u)" if v < V else "0xffffffffu"
                    dc_ = f"(({q}) & {KQ-1}u) * 4u" if v < V else "0u"
                    bq, r4 = v // 4, v % 4
                    qb = f"{CID} + {T*bq}u" if bq else CID
                    ok_t = bq < max(V // 4, 1)
                    tk = f"((({qb}) >> {5 + p2(RQ4)}u) * {KL}u + (({qb}) & {KL-1}u)) * 4u + {r4}u" if ok_t else "0u"
                    tc = f"{rr} + ((((({qb}) >> 5u) & {RQ4-1}u) * {RL}u + ((({qb}) >> {KB}u) & {RL-1}u)) * 4u)" if ok_t else "0xffffffffu"
                    if ok_t and V == 2:
                        tc = sel("0xffffffffu", tc, f"{CID} < {T // 2}u")
                    o(I + decl(f"{x}_r{v}", sel(dr_, tk, tr)))
                    o(I + decl(f"{x}_c{v}", sel(dc_, tc, tr)))
            o(I + "if (a_ld % 4u == 0u && b_ld % 4u == 0u) {")
            LI = I + "    "
            J = I + "  "
            o(J + ("for (var s = 0u; s < steps; s += 2u) {" if W else "for (uint s = 0u; s < steps; s += 2u) {"))
            K2 = J + "  "
            def bf_fetch(ind, t, rs):
                for x, V in (("a", VA), ("b", VB)):
                    for v in range(max(V, 4)):
                        o(ind + "{")
                        o(ind + "  " + decl("r", f"{x}_r{v} + ({t}) * {x}_dr"))
                        o(ind + "  " + decl("c", f"{x}_c{v} + ({t}) * {x}_dc"))
                        o(ind + "  " + declb("ok", f"r < {x}_rows && c < {x}_ld"))
                        o(ind + "  " + (f"let w = t{x}_in[{sel('0u', f'(r * {x}_ld + c) / 4u', 'ok')}];" if W else
                                        f"const f16vec4 w = t{x}_in[{sel('0u', f'(r * {x}_ld + c) / 4u', 'ok')}];"))
                        o(ind + f"  r{x}{v}{rs} = {sel('vec4<f16>()' if W else 'f16vec4(0.0)', 'w', 'ok')};")
                        o(ind + "}")
            o(K2 + "// even step s: buffer 0 holds its tiles, the registers _1 step s + 1's (zeros past K)")
            bf_fetch(K2, "s + 2u", "")
            compute(K2, "", "")
            store_lines(K2, f"{TA}u + ", f"{TB}u + ", "_1")
            o(K2 + bar)
            o(K2 + "// odd step s + 1 (past K when steps is odd: its tiles are zeros, adding nothing)")
            bf_fetch(K2, "s + 3u", "_1")
            compute(K2, f"{TA}u + ", f"{TB}u + ")
            store_lines(K2, "", "", "")
            o(K2 + bar)
            o(J + "}")
            o(I + "} else {")
        o(LI + ("for (var s = 0u; s < steps; s += 2u) {" if W else "for (uint s = 0u; s < steps; s += 2u) {"))
        J = LI + "  "
        o(J + "// even step s: buffer 0 holds its tiles, the registers _1 step s + 1's")
        o(J + "if (s + 2u < steps) {")
        lfetch(J + "  ", f"(s + 2u) * {BK}u")
        o(J + "}")
        compute(J, "", "")
        o(J + "if (s + 1u < steps) {  // into buffer 1, last read in step s - 1")
        store_lines(J + "  ", f"{TA}u + ", f"{TB}u + ", "_1")
        o(J + "}")
        if lbar: o(J + lbar)
        o(J + "if (s + 1u < steps) {  // odd step s + 1: buffer 1, the registers hold step s + 2's")
        K2 = J + "  "
        o(K2 + "if (s + 3u < steps) {")
        lfetch(K2 + "  ", f"(s + 3u) * {BK}u", "_1")
        o(K2 + "}")
        compute(K2, f"{TA}u + ", f"{TB}u + ")
        o(K2 + "if (s + 2u < steps) {  // into buffer 0, last read in step s")
        store_lines(K2 + "  ", "", "")
        o(K2 + "}")
        if lbar: o(K2 + lbar)
        o(J + "}")
        o(LI + "}"); o()
        if BF:
            o(I + "}")
    if D == 1:
        o(I + "if (steps > 0u) {  // the first K step's tiles")
        fetch_lines(I + "  ", "0u")
        if STAGES == 2 or no_stage:
            store_lines(I + "  ", "", "")
        o(I + "}")
        if STAGES == 2 or no_stage:
            o(I + bar)
        if no_lds:
            o(I + "// ablation: the subgroup matrices are loaded once")
            for j in range(NJ):
                o(I + (f"var xb{j}: {RIGHT};" if W else f"{RIGHT} xb{j};"))
                o(I + load(f"xb{j}", RIGHT, "tile_b", f"(scol + {16*j}u) * {S}u", True, f"{S}u"))
            for i in range(MI):
                o(I + (f"var xa{i}: {LEFT};" if W else f"{LEFT} xa{i};"))
                o(I + load(f"xa{i}", LEFT, "tile_a", f"(srow + {16*i}u) * {S}u", False, f"{S}u"))
        o()
        o(I + ("for (var s = 0u; s < steps; s++) {" if W else "for (uint s = 0u; s < steps; s++) {"))
        J = I + "  "
        if STAGES == 2:
            o(J + decl("cur", "s % 2u"))
            o(J + declb("more", "s + 1u < steps"))
            if not no_global:
                o(J + "if (more) {  // the next K step's tiles into registers")
                o(J + "  " + decl("k0", f"(s + 1u) * {BK}u"))
                fetch_lines(J + "  ", "k0")
                o(J + "}")
            if no_lds:
                compute_nolds(J)
            else:
                compute(J, f"cur * {TA}u + ", f"cur * {TB}u + ")
            if not no_stage:
                o(J + "if (more) {  // into the other buffer, last read in the step before this one")
                store_lines(J + "  ", f"(1u - cur) * {TA}u + ", f"(1u - cur) * {TB}u + ")
                o(J + "}")
            o(J + bar)
        else:  # one buffer: store, barrier, fetch the next step while multiplying, barrier
            if not no_stage:
                store_lines(J, "", "")
                o(J + bar)
            o(J + declb("more", "s + 1u < steps"))
            if not no_global:
                o(J + "if (more) {  // the next K step's tiles into registers")
                o(J + "  " + decl("k0", f"(s + 1u) * {BK}u"))
                fetch_lines(J + "  ", "k0")
                o(J + "}")
            if no_lds:
                compute_nolds(J)
            else:
                compute(J, "", "")
            o(J + bar)
        o(I + "}"); o()
    o(I + "if (direct_c) {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + "  " + cons(store(f"c{i}{j}", "tc_out", f"c_base + ({r}) * ldc + {c}" if BT else f"({r}) * N + {c}", "ldc" if BT else "N")))
    o(I + "} else {")
    for i in range(MI):
        for j in range(NJ):
            r, c = rc(i, j)
            o(I + f"  {bar}"); o(I + "  " + cons(store(f"c{i}{j}", "tile_c", "cbase", "16u"))); o(I + f"  {bar}")
            o(I + "  " + cons(f"c_out(cbase, lxy.x, {r}, {c}, M, N{', c_base, ldc' if BT else ''});"))
    o(I + "}")
    o("}")
    return "\n".join(L) + "\n"


def nat_block(cfg):
    return 16 * cfg["MI"] * cfg["SGM"], 16 * cfg["NJ"] * cfg["SGN"]


def nat_smem(cfg):
    BM, BN = nat_block(cfg)
    return cfg["STAGES"] * (BM + BN) * (cfg["BK"] + cfg.get("PAD", 8)) * 2 + 1024 * cfg["SGM"] * cfg["SGN"]


# Measurement-only variants (sweep/, built with -DWGSLVK_SGMM_SWEEP=ON; README "Sweep").
SWEEP = {
    # 2026-11-27g call 1 (bench/results/h200-2026-11-27g-sgmm) also measured, and dropped since:
    # nat4_128x64_fp_d2 / nat4_64x128_fp_d2 (SGM=4, SGN=1 / SGM=2, SGN=2, MI=2, NJ=4: 128x64 /
    # 64x128 blocks of 4 subgroups), nat8_128x64_fp_d2 / nat8_64x128_fp_d2 (SGM=4, SGN=2 / SGM=2,
    # SGN=4, MI=2, NJ=2: 8 subgroups of 32x32, 118 registers), all slower than tiled8_d2 on every
    # gpt110m product but the smallest grids; nat8_fp_d4 and nat4_64x64_fp_d4 are shipped
    # (sgmm_f16_tiled8_d4, sgmm_f16_tiled4_d4).
    # 2026-11-27d/j also measured the split-K ablation of tiled8_d2 (SK=2 / 4: wrong results,
    # timing only; grid z = 2 / 4, each workgroup multiplies one K chunk and stores it over C):
    # 78.7 / 82.7 TFLOP/s at 4096^3 flags 0 vs tiled8_d2's 118.4 (27j call 2), dropped since.
    # 2026-11-27l call 1 (bench/results/h200-2026-11-27l-sgmm) also measured, and dropped since
    # (4096^3 TFLOP/s flags 0 / 2 / 1; sgmm_f16_tiled8_d4 128.3 / 138.4 / 109.9 in the same pass):
    # the dispatch order's group of block rows (GRP, 8 in every shipped kernel) on tiled8_d4's
    # configuration: GRP=1 (row by row) 126.5 / 137.9 / 110.0, GRP=4 129.1 / 137.7 / 110.0,
    # GRP=16 127.6 / 139.7 / 109.8 (no effect beyond 2%); K steps of 16 on 128x128 blocks
    # (nat8_k16_d4: 88.6 / 86.2 / 83.1); 256x128 blocks of 8 subgroups of 64x64 with K steps of 16
    # fetched four ahead (w256_k16_d4, 246 registers: 90.8 / 91.8 / 82.4) or one buffer of K 32
    # and two barriers a step (w256_k32_s1, 211 registers: 108.9 / 116.2 / 95.5); w128x256_k16_d2
    # is shipped (sgmm_f16_tiled8_n256: 151.6 / 153.5 / 135.0).
    # Call 2 also measured w128x256_k16_d3 (sgmm_f16_tiled8_n256 with tiles fetched three K steps
    # ahead, the general loop; 230 registers): 120.5 / 119.6 / 106.4 vs tiled8_n256's 149.9 /
    # 153.7 / 133.5, dropped since.
    # 256x128 blocks (8 subgroups of 64x64, 4x4 result matrices each), K steps of 16 (two tile
    # buffers of K 32 would take 61,440 bytes, over the H200's 49,152), two steps ahead, the
    # transpose of sgmm_f16_tiled8_n256: 140.8 / 153.7 / 138.5 (call 1), 139.0 / 153.8 / 137.6
    # (call 2); faster than tiled8_n256 with TRANS_A only
    "w256_k16_d2": dict(SGM=4, SGN=2, MI=4, NJ=4, BK=16, STAGES=2, FP=True, D=2),
    # Session 14 (issue 24: where sgmm_f16_tiled8_n256's K step goes; bench/results/
    # h200-2026-11-27q-sgmm, README "Why the K step is slow"), timing-only ablations of its loop
    # (results wrong): without the global loads (ng), without the barriers (nb), and the
    # multiply-adds with one barrier a step alone (d1_mo: this path's tensor-core ceiling at this
    # tile and occupancy). Also measured there and dropped (4096^3 flags 0 / 2 / 1, TFLOP/s;
    # tiled8_n256 152.0 / 154.6 / 136.2 in the same pass): ngnb (neither) 346.1 / 337.2 / 334.7;
    # the one-ahead loop d1 (D=1) 107.0 / 114.3 / 106.7, its d1_ns (no global loads, no copy)
    # 317.9 / 318.2 / 317.3; PAD=0 (2-way bank conflicts) 133.8 / 135.0 / 124.1; U4 136.7 / 141.5
    # / 117.7. Call 2: warp specialization (WS copying subgroups beside the 64x64 multipliers; PD
    # 1 or 2 steps ahead), WS=2 (320 invocations, capped at 168 registers, spills) 43.9 / 47.2 /
    # 44.7, PD=2 39.2 / 37.8 / 38.5, WS=4 (384) 87.7 / 93.8 / 81.8, 4 multipliers of 64x64 on
    # 128x128 with WS=4 and K 32 (190 registers) 76.8 / 83.2 / 68.5, PD=2 72.5 / 75.8 / 64.6.
    # Call 3: the branch-free loop (BF) on tiled8_n256's configuration 109.7 / 118.0 / 88.5 (255
    # registers, spills) and on tiled8_d2's 94.9 / 110.8 / 84.2 (224 registers; tiled8_d2 119.6 /
    # 129.5 / 104.2).
    "n256_ng": dict(SGM=2, SGN=4, MI=4, NJ=4, BK=16, STAGES=2, FP=True, D=2, ABL="ng"),
    "n256_nb": dict(SGM=2, SGN=4, MI=4, NJ=4, BK=16, STAGES=2, FP=True, D=2, ABL="nb"),
    "n256_d1_mo": dict(SGM=2, SGN=4, MI=4, NJ=4, BK=16, STAGES=2, FP=True, D=1, ABL="mo"),
}

HERE = os.path.dirname(os.path.abspath(__file__))
WGSL_HEADER = "// wgslvk's own WGSL (not from the seeds): a tiled f16-input, f32-accumulating matmul on Dawn's\n// chromium-experimental-subgroup-matrix, written out as straight-line code by gen_tiled.py (no\n// arrays of matrices: an array of result matrices indexed in loops went to local memory on\n// NVIDIA). Same product and flags as sgmm_f16 (subgroup_matrix.wgsl): C[M,N] (+)= op(A)[M,K]\n// op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]), ACCUMULATE 8.\n// One workgroup = 8 subgroups of 32 (workgroup (32, 8, 1): Dawn's rule that x is a multiple of\n// the subgroup size makes local_invocation_id.y the subgroup's index) computes a 128x128 block of\n// C; each subgroup owns a 32x64 part as 2x4 16x16 result matrices (each left matrix it loads is\n// used 4 times, each right one twice).\n// K advances 32 at a time: all invocations copy the next A and B tiles (128x32 and 32x128 f16, as\n// stored, 8-byte vec4<f16> loads) into registers while the subgroups multiply the current ones\n// out of workgroup memory, then store them into the other half of a double buffer: one barrier\n// per K step. Rows of the tiles are padded by 8 f16 (16 bytes) so the 16-byte rows a subgroup\n// matrix load reads fall in distinct banks. Zeros are staged outside the operands (edge blocks,\n// the last partial K step, strides that are not multiples of 4 elements: element by element\n// there), so every block runs the same code; C is loaded and stored as result matrices straight\n// from the buffer when the block is inside C and N is a multiple of 4, else element by element\n// through workgroup memory, inside its bounds. Blocks are visited in groups of 8 block rows so\n// that the blocks running together share their A rows and B columns in the L2 cache.\n// Workgroup memory: 49,152 bytes (2 x 2 x 10,240 for the tiles, 8,192 for C at the edges): more\n// than WebGPU's default maxComputeWorkgroupStorageSize (16,384); the device must be requested\n// with it (Dawn on the H200 offers 49,152 and accepts it).\n// A and B are read as vec4<f16>: their buffers hold whole vec4s (pad with zeros to a multiple of\n// 8 bytes). Dispatch (ceil(N / 128), ceil(M / 128), 1). Port: sgmm_f16_tiled8.comp (README.md).\n"
GLSL_HEADER = '#version 450\n// Port of chromium_experimental/subgroup_matrix_tiled8.wgsl: sgmm_f16_tiled8 (ours), line by line, with\n// GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time\n// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16.comp.\n// subgroup_matrix_left/right<f16, 16, 16> are LEFT/RIGHT, subgroup_matrix_result<f32, 16, 16>\n// RESULT; subgroupMatrixLoad/Store are coopMatLoadNV/coopMatStoreNV (offset and stride in\n// elements, the same column-major flag), subgroupMatrixMultiplyAccumulate is coopMatMulAddNV.\n'

NAT_WGSL_HEADER = """// wgslvk's own WGSL (not from the seeds): NAME, a measurement variant of sgmm_f16 (same ABI, flags
// and dispatch rule with its block) written by gen_tiled.py --sweep: CFG."""
NAT_GLSL_HEADER = """#version 450
// Port of NAME.wgsl (gen_tiled.py --sweep), line by line, with GL_NV_cooperative_matrix, as
// sgmm_f16_tiled8.comp."""


def write_sweep(out):
    os.makedirs(out, exist_ok=True)
    cm, inc = [], []
    only = os.environ.get("WGSLVK_SGMM_SWEEP_ONLY", "").split(",")  # a subset (measurement calls)
    for tag, cfg in SWEEP.items():
        if only != [""] and tag not in only:
            continue
        name = "sgmm_sw_" + tag
        c = ", ".join(f"{k} {v}" for k, v in cfg.items())
        for ext, lang, hdr in (("wgsl", "wgsl", NAT_WGSL_HEADER), ("comp", "glsl", NAT_GLSL_HEADER)):
            h = hdr.replace("NAME", name).replace("CFG", c).splitlines()
            with open(os.path.join(out, f"{name}.{ext}"), "w") as f:
                f.write(gen_nat(name, cfg, lang, h))
        bm, bn = nat_block(cfg)
        assert nat_smem(cfg) <= 49152, (tag, nat_smem(cfg))
        w, c_ = os.path.join(os.path.abspath(out), f"{name}.wgsl"), os.path.join(os.path.abspath(out), f"{name}.comp")
        cm.append(f"wgslvk_add_port(WGSL {w} KERNEL {name} SOURCE {c_})")
        checked = 0 if cfg.get("ABL") or cfg.get("SK", 1) > 1 else 1
        inc.append(f'{{"subgroup_matrix/{name}", {bm}, {bn}, {checked}, {nat_smem(cfg)}, {cfg.get("SK", 1)}}},')
    with open(os.path.join(out, "ports.cmake"), "w") as f:
        f.write("# gen_tiled.py --sweep (measurement only)\n" + "\n".join(cm) + "\n")
    with open(os.path.join(out, "variants.inc"), "w") as f:
        f.write("// gen_tiled.py --sweep: {kernel, block rows, block cols, checked, workgroup bytes, K splits}\n" + "\n".join(inc) + "\n")


# sgmm_f16_tiled8_d2 (shipped): the sweep's nat8_fp_d2 (README.md, "sgmm_f16_tiled8_d2").
D2_CFG = dict(SGM=4, SGN=2, MI=2, NJ=4, BK=32, STAGES=2, FP=True, D=2)
D2_WGSL_HEADER = """// wgslvk's own WGSL (not from the seeds): sgmm_f16_tiled8_d2, sgmm_f16_tiled8's product, flags,
// bindings, workgroup (32, 8, 1), 128x128 blocks and dispatch rule (a drop-in for it), faster on
// the H200 (wgsl_ports/subgroup_matrix/README.md), written out by gen_tiled.py as straight-line
// code (named result matrices and copy registers). Dawn's rule that the workgroup's x is a multiple
// of the subgroup size makes local_invocation_id.y each subgroup's index. C[M,N] (+)= op(A)[M,K] op(B)[K,N], row-major;
// TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored [N, K]), ACCUMULATE 8. Each of the 8 subgroups
// owns a 32x64 part of the block as 2x4 16x16 result matrices.
// What differs from sgmm_f16_tiled8:
// - One workgroup-memory layout for every flag: A as [m][k], B as [n][k] (rows of 32 + 8 f16), so
//   the inner loop's subgroup-matrix loads (left row-major, right column-major) have no branches.
//   An operand stored the other way round is transposed while it is copied: an invocation fetches
//   a 4x4 block (four vec4<f16> of consecutive stored rows) and writes it as four rows of four k.
// - Tiles are fetched into registers two K steps ahead (two register sets, the loop unrolled by
//   two): the loads of step s + 2 are issued before step s multiplies and stored into workgroup
//   memory after step s + 1 has, one barrier per step, two tile buffers.
// - A tile wholly inside its operand (and a row length that is a multiple of 4) is fetched with one
//   vec4<f16> load per vector and no per-vector bounds checks (one uniform test per tile); edge
//   tiles and the last partial K step stage zeros outside the operands element by element.
// C as sgmm_f16_tiled8: result matrices straight from/to the buffer when the block is inside C and
// N % 4 == 0, else element by element through workgroup memory inside its bounds. Workgroup
// memory 49,152 bytes (2 x 20,480 for the tiles, 8,192 for C at edge blocks): the device must be
// requested with it. A and B are read as vec4<f16>: their buffers hold whole vec4s (pad with zeros
// to a multiple of 8 bytes). Dispatch (ceil(N / 128), ceil(M / 128), 1), the blocks visited in
// groups of 8 block rows. Port: sgmm_f16_tiled8_d2.comp."""
D2_GLSL_HEADER = """#version 450
// Port of chromium_experimental/subgroup_matrix_tiled8_d2.wgsl: sgmm_f16_tiled8_d2 (ours), line by
// line, with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled8.comp."""


# sgmm_f16_tiled8_d4 and sgmm_f16_tiled4_d4 (shipped; the sweep's nat8_fp_d4 and nat4_64x64_fp_d4):
# the kernels subgroup_matrix::plan() picks for long K / small grids (README.md, "Which kernel").
D4_CFG = dict(SGM=4, SGN=2, MI=2, NJ=4, BK=32, STAGES=2, FP=True, D=4)
T4_CFG = dict(SGM=2, SGN=2, MI=2, NJ=2, BK=32, STAGES=2, FP=True, D=4)
DN_WGSL_HEADER = """// wgslvk's own WGSL (not from the seeds): NAME, sgmm_f16_tiled8_d2's product,
// flags, bindings and code (wgsl_ports/subgroup_matrix/README.md, "sgmm_f16_tiled8_d2"), written
// out by gen_tiled.py, with WHAT
// Tiles are fetched into registers four K steps ahead (four register sets, the loop unrolled by
// four, the buffer of a step chosen at run time), stored into workgroup memory after the step
// before theirs has multiplied, one barrier per step, two tile buffers. For each result matrix
// the multiply-adds are sgmm_f16_tiled8_d2's, in the same order (bit-identical outputs).
// C[M,N] (+)= op(A)[M,K] op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2 (B stored
// [N, K]), ACCUMULATE 8. A and B are read as vec4<f16>: their buffers hold whole vec4s (pad with
// zeros to a multiple of 8 bytes). Workgroup memory BYTES bytes: the device must be requested
// with it where that is over WebGPU's default 16,384. Dispatch DISPATCH,
// the blocks visited in groups of 8 block rows. Port: NAME.comp."""
DN_GLSL_HEADER = """#version 450
// Port of chromium_experimental/FILE: NAME (ours), line by line,
// with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled8_d2.comp."""
SHIPPED_DN = [
    ("sgmm_f16_tiled8_d4", "subgroup_matrix_tiled8_d4.wgsl", D4_CFG,
     "workgroup (32, 8, 1) = 8 subgroups on a\n// 128x128 block of C (each subgroup 32x64 as 2x4 result matrices), as tiled8_d2.",
     "(ceil(N / 128), ceil(M / 128), 1)"),
    ("sgmm_f16_tiled4_d4", "subgroup_matrix_tiled4_d4.wgsl", T4_CFG,
     "workgroup (32, 4, 1) = 4 subgroups on a\n// 64x64 block of C (each subgroup 32x32 as 2x2 result matrices): four times the blocks of the\n// 128x128 kernels, for products with few of those.",
     "(ceil(N / 64), ceil(M / 64), 1)"),
]


# sgmm_f16_tiled8_n256 (shipped; the sweep's w128x256_k16_d2 of 2026-11-27l): 128x256 blocks, the
# kernel subgroup_matrix::plan() picks for large grids with long K (README.md, "Which kernel").
N256_CFG = dict(SGM=2, SGN=4, MI=4, NJ=4, BK=16, STAGES=2, FP=True, D=2)
N256_WGSL_HEADER = """// wgslvk's own WGSL (not from the seeds): sgmm_f16_tiled8_n256, sgmm_f16_tiled8_d2's product,
// flags, bindings and bound (wgsl_ports/subgroup_matrix/README.md, "sgmm_f16_tiled8_n256"), written
// out by gen_tiled.py, on 128x256 blocks of C: workgroup (32, 8, 1) = 8 subgroups (Dawn's rule that
// the workgroup's x is a multiple of the subgroup size makes local_invocation_id.y each subgroup's
// index), each a 64x64 part as 4x4 16x16 result matrices (each left and right matrix it loads is
// used 4 times: 3/4 of the global and workgroup-memory loads a multiply-add of the 128x128
// kernels). C[M,N] (+)= op(A)[M,K] op(B)[K,N], row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2
// (B stored [N, K]), ACCUMULATE 8.
// K advances 16 at a time (two tile buffers of K 32 would need 61,440 bytes): workgroup memory
// holds A as [m][k] and B as [n][k] (rows of 16 + 8 f16) whatever the flags, an operand stored the
// other way round transposed while it is copied (4x4 blocks of four vec4<f16>); tiles are fetched
// into registers two K steps ahead (two register sets, the loop unrolled by two) and stored into
// workgroup memory after the step before theirs has multiplied, one barrier per step, two tile
// buffers; a tile wholly inside its operand (row length a multiple of 4) is fetched with one
// vec4<f16> load per vector and no per-vector bounds checks, edge tiles and the last partial K
// step stage zeros outside the operands element by element. For each result matrix the
// multiply-adds are sgmm_f16_tiled8_d2's, in the same order (bit-identical outputs).
// C as sgmm_f16_tiled8_d2: result matrices straight from/to the buffer when the block is inside C
// and N % 4 == 0, else element by element through workgroup memory inside its bounds. Workgroup
// memory 45,056 bytes (2 x 18,432 for the tiles, 8,192 for C at edge blocks): the device must
// be requested with it (over WebGPU's default 16,384). A and B are read as vec4<f16>: their
// buffers hold whole vec4s (pad with zeros to a multiple of 8 bytes). Dispatch
// (ceil(N / 256), ceil(M / 128), 1), the blocks visited in groups of 8 block rows. Port:
// sgmm_f16_tiled8_n256.comp."""
N256_GLSL_HEADER = """#version 450
// Port of chromium_experimental/subgroup_matrix_tiled8_n256.wgsl: sgmm_f16_tiled8_n256 (ours), line
// by line, with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled8_d2.comp."""


def write_shipped_n256():
    assert nat_block(N256_CFG) == (128, 256) and nat_smem(N256_CFG) == 45056
    with open(os.path.join(HERE, "chromium_experimental", "subgroup_matrix_tiled8_n256.wgsl"), "w") as f:
        f.write(gen_nat("sgmm_f16_tiled8_n256", N256_CFG, "wgsl", N256_WGSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "sgmm_f16_tiled8_n256.comp"), "w") as f:
        f.write(gen_nat("sgmm_f16_tiled8_n256", N256_CFG, "glsl", N256_GLSL_HEADER.splitlines()))


# sgmm_f16_batched (shipped): sgmm_f16_tiled4_d4's code on a batch of products, workgroup z one of
# them, each operand at its own offset and row stride (README.md, "sgmm_f16_batched"): the
# trainer's attention products on tensor cores.
BATCH_CFG = dict(T4_CFG, BATCH=True)
BATCH_WGSL_UNIFORM = """// The batch: product z = o * ld.w + i (o outer, i inner) reads A from element off.x + o * ab.x +
// i * ab.y, B from off.y + o * ab.z + i * ab.w, and writes C from off.z + o * cb.x + i * cb.y, each
// stored row r of them ld.x / ld.y / ld.z elements after row r - 1 (row lengths as sgmm_f16's: K or
// M for A, N or K for B, N for C).
struct BatchDims {
  mnkf: vec4<u32>,  // (M, N, K, flags), sgmm_f16's
  ld: vec4<u32>,    // (A's, B's and C's row strides, the batch's inner count)
  ab: vec4<u32>,    // (A's outer and inner batch strides, B's outer and inner)
  cb: vec4<u32>,    // (C's outer and inner batch strides, 0, 0)
  off: vec4<u32>,   // (A's, B's and C's first element, 0)
}
@group(0) @binding(3) var<uniform> tdims: BatchDims;"""
BATCH_GLSL_UNIFORM = """// WGSL: struct BatchDims { mnkf, ld, ab, cb, off: vec4<u32> } (the batch's layout: the WGSL's comment)
layout(set = 0, binding = 3, std140) uniform BatchDims {
  uvec4 mnkf;
  uvec4 ld;
  uvec4 ab;
  uvec4 cb;
  uvec4 off;
} tdims;"""
BATCH_WGSL_HEADER = """// wgslvk's own WGSL (not from the seeds): sgmm_f16_batched, sgmm_f16_tiled4_d4's product, flags
// and code (wgsl_ports/subgroup_matrix/README.md, "sgmm_f16_batched"), written out by gen_tiled.py,
// on a batch of products: workgroup z computes product z, whose A, B and C start at offsets and
// have row strides of their own (the uniform BatchDims below), so a product can read a head's
// columns of a wider matrix in place (attention's Q, K and V inside the [tokens][3 d] qkv rows).
// C[M,N] (+)= op(A)[M,K] op(B)[K,N] per product, row-major; TRANS_A 1 (A stored [K, M]), TRANS_B 2
// (B stored [N, K]), ACCUMULATE 8. Workgroup (32, 4, 1) = 4 subgroups on a 64x64 block of C (each
// 32x32 as 2x2 result matrices); tiles fetched four K steps ahead; the vec4<f16> fast path where a
// tile is inside its operand and the operand's offset and row stride are multiples of 4; C as
// result matrices straight from/to the buffer where the block is inside C and C's offset and row
// stride are multiples of 4, else through workgroup memory inside its bounds. For each result
// matrix the multiply-adds are sgmm_f16_tiled4_d4's, in the same order (the same bits as that kernel
// on each product alone). A and B are read as vec4<f16>: their buffers hold whole vec4s.
// Workgroup memory 24,576 bytes: the device must be requested with it (over WebGPU's default
// 16,384). Dispatch (ceil(N / 64), ceil(M / 64), products). Port: sgmm_f16_batched.comp."""
BATCH_GLSL_HEADER = """#version 450
// Port of chromium_experimental/subgroup_matrix_batched.wgsl: sgmm_f16_batched (ours), line by line,
// with GL_NV_cooperative_matrix, rewritten to SPV_KHR_cooperative_matrix at build time
// (translator/src/coopmat.hpp; README "Toolchain"), as sgmm_f16_tiled4_d4.comp."""


def write_shipped_batched():
    assert nat_smem(BATCH_CFG) == 24576
    with open(os.path.join(HERE, "chromium_experimental", "subgroup_matrix_batched.wgsl"), "w") as f:
        f.write(gen_nat("sgmm_f16_batched", BATCH_CFG, "wgsl", BATCH_WGSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "sgmm_f16_batched.comp"), "w") as f:
        f.write(gen_nat("sgmm_f16_batched", BATCH_CFG, "glsl", BATCH_GLSL_HEADER.splitlines()))


def write_shipped_dn():
    for name, wgsl, cfg, what, disp in SHIPPED_DN:
        sub = lambda h: (h.replace("NAME", name).replace("FILE", wgsl).replace("WHAT", what)
                         .replace("BYTES", f"{nat_smem(cfg):,}").replace("DISPATCH", disp))
        with open(os.path.join(HERE, "chromium_experimental", wgsl), "w") as f:
            f.write(gen_nat(name, cfg, "wgsl", sub(DN_WGSL_HEADER).splitlines()))
        with open(os.path.join(HERE, f"{name}.comp"), "w") as f:
            f.write(gen_nat(name, cfg, "glsl", sub(DN_GLSL_HEADER).splitlines()))


if __name__ == "__main__":
    import sys
    if len(sys.argv) > 1 and sys.argv[1] == "--sweep":  # --sweep DIR (default ./sweep here)
        write_sweep(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "sweep"))
        sys.exit(0)
    with open(os.path.join(HERE, "chromium_experimental", "subgroup_matrix_tiled8.wgsl"), "w") as f:
        f.write(gen("sgmm_f16_tiled8", 8, "wgsl", WGSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "sgmm_f16_tiled8.comp"), "w") as f:
        f.write(gen("sgmm_f16_tiled8", 8, "glsl", GLSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "chromium_experimental", "subgroup_matrix_tiled8_d2.wgsl"), "w") as f:
        f.write(gen_nat("sgmm_f16_tiled8_d2", D2_CFG, "wgsl", D2_WGSL_HEADER.splitlines()))
    with open(os.path.join(HERE, "sgmm_f16_tiled8_d2.comp"), "w") as f:
        f.write(gen_nat("sgmm_f16_tiled8_d2", D2_CFG, "glsl", D2_GLSL_HEADER.splitlines()))
    write_shipped_dn()
    write_shipped_n256()
    write_shipped_batched()
