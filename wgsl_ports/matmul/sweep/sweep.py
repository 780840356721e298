#!/usr/bin/env python3
"""matmul_native's tile sweep (issue 23; README.md here): writes one GLSL port per configuration of
tile_sweep.glsl (ABI of matmul_native) and wgslvk-case/1 folders timing each of them, the built-in
hand ports matmul_native and matmul_native_n64, at the GPT shapes; gpu_sweep.sh times them with
`wgslvk bench --cases` beside cuBLAS. Inputs and checks as splitk_cases.py (C[0, :64] within
bound_ulps(K) = 17/16 K + 1 ULPs of S against a double reference).

usage: sweep.py OUT_DIR [--quick]   (OUT_DIR/ports/*.comp, OUT_DIR/cases/*, OUT_DIR/cases/index.json)
       sweep.py OUT_DIR --final      the built-in kernels only, no ports: hand matmul_native and
           matmul_native_k16 at every shape, the k16 WGSL as wgslvk's front end translates it
           ("matmul_native/matmul_native_k16", gpu_matmul.sh's --wgsl) at the gpt110m shapes, and
           the hand split-K pair at native_plan()'s S where the plan splits (< 66 tiles)
       sweep.py OUT_DIR --gemm       issue 23, session 13: at 2048^3, 4096^3 and the gpt110m
           products, hand matmul_native_k16, the hand split-K pair where native_plan() splits, and
           matmul_batched as one product (64 x 64 tiles, "hand_bmm"; H 1, no strides or offsets)
       sweep.py OUT_DIR --wide       issue 23, session 14: hand matmul_native and matmul_native_k16
           at those shapes, the hand split-K pair where native_plan() splits, and one port of
           wide_sweep.glsl (8 x 16 outputs per invocation) per blocking of WIDE
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import splitk_cases as sc  # noqa: E402

# name: (TM, TN, BK, STAGES, WARP_TILED); workgroup memory STAGES * BK * (TM + TN) * 4 <= 16 KB
CONFIGS = {
    "t128x128_k8_s2": (128, 128, 8, 2, 0),
    "t128x128_k8_s2_w": (128, 128, 8, 2, 1),
    "t128x128_k16_s1_w": (128, 128, 16, 1, 1),
    "t128x64_k8_s2": (128, 64, 8, 2, 0),
    "t128x64_k16_s1": (128, 64, 16, 1, 0),
    "t64x128_k8_s2": (64, 128, 8, 2, 0),
    "t64x128_k8_s2_w": (64, 128, 8, 2, 1),
    "t64x64_k8_s2": (64, 64, 8, 2, 0),
    "t64x64_k16_s1": (64, 64, 16, 1, 0),
    "t64x64_k16_s2": (64, 64, 16, 2, 0),
}

# wide_sweep.glsl's blockings (8 x 16 outputs per invocation, TM * TN / 128 invocations):
# name: (W_TM, W_TN, W_BK, W_STAGES); workgroup memory W_STAGES * W_BK * (W_TM + W_TN) * 4 <= 16 KB.
# w128x64_k8_s2 is k16's tile and dispatch (measured in the trainer as matmul_native_w, 7865932).
WIDE = {
    "w128x64_k8_s2": (128, 64, 8, 2),
    "w128x128_k8_s2": (128, 128, 8, 2),
    "w64x128_k8_s2": (64, 128, 8, 2),
    "w128x64_k16_s1": (128, 64, 16, 1),
    "w128x128_k16_s1": (128, 128, 16, 1),
}

# The WGSL each wide port is ABI-checked against: the bindings and workgroup size of the port, and
# a plain kernel computing the same 8 x 16 outputs per invocation straight from global memory
# (only the GLSL port is timed).
WGSL_WIDE = """// matmul_native wide sweep NAME (sweep.py --wide): the ABI of the GLSL port NAME.comp.
@group(0) @binding(0) var<storage, read> na: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> nb: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> nc: array<f32>;
@group(0) @binding(3) var<storage, read> nbias: array<f32>;
@group(0) @binding(4) var<uniform> ndims: vec4<u32>;

fn op_a(m: u32, k: u32) -> f32 {
    var i = m * ndims.z + k;
    if ((ndims.w & 1u) != 0u) { i = k * ndims.x + m; }
    return na[i / 4u][i % 4u];
}
fn op_b(k: u32, n: u32) -> f32 {
    var i = k * ndims.y + n;
    if ((ndims.w & 2u) != 0u) { i = n * ndims.z + k; }
    return nb[i / 4u][i % 4u];
}

@compute @workgroup_size(WGN, 1, 1)
fn NAME(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let M = ndims.x;
    let N = ndims.y;
    let K = ndims.z;
    let tiles_n = (N + TNu - 1u) / TNu;
    let tile = wid.y * nwg.x + wid.x;
    if (tile >= ((M + TMu - 1u) / TMu) * tiles_n) { return; }
    let ty = lid / (TNu / 16u);
    let tx = lid % (TNu / 16u);
    for (var i = 0u; i < 128u; i = i + 1u) {
        let rr = i / 16u;
        let row = (tile / tiles_n) * TMu + ty * 4u + rr % 4u + (rr / 4u) * (TMu / 2u);
        let col = (tile % tiles_n) * TNu + tx * 4u + ((i / 4u) % 4u) * (TNu / 4u) + i % 4u;
        if (row < M && col < N) {
            var s = 0.0;
            for (var k = 0u; k < K; k = k + 1u) { s = fma(op_a(row, k), op_b(k, col), s); }
            if ((ndims.w & 4u) != 0u) { s = s + nbias[col]; }
            if ((ndims.w & 8u) != 0u) { s = nc[row * N + col] + s; }
            nc[row * N + col] = s;
        }
    }
}
"""


def wide_port(name, tm, tn, bk, st):
    return ("#version 450\n// matmul_native wide sweep: %s (sweep.py --wide)\n"
            "#define W_TM %d\n#define W_TN %d\n#define W_BK %d\n#define W_STAGES %d\n"
            '#include "wide_sweep.glsl"\n' % (name, tm, tn, bk, st))


# The WGSL each port is ABI-checked against (bindings, workgroup size): the same products, the same
# outputs per invocation, straight from global memory (a plain reference-order kernel: the sweep
# times the GLSL ports only).
WGSL = """// matmul_native tile sweep NAME (sweep.py): the ABI of the GLSL port NAME.comp.
@group(0) @binding(0) var<storage, read> na: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> nb: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> nc: array<f32>;
@group(0) @binding(3) var<storage, read> nbias: array<f32>;
@group(0) @binding(4) var<uniform> ndims: vec4<u32>;

fn op_a(m: u32, k: u32) -> f32 {
    var i = m * ndims.z + k;
    if ((ndims.w & 1u) != 0u) { i = k * ndims.x + m; }
    return na[i / 4u][i % 4u];
}
fn op_b(k: u32, n: u32) -> f32 {
    var i = k * ndims.y + n;
    if ((ndims.w & 2u) != 0u) { i = n * ndims.z + k; }
    return nb[i / 4u][i % 4u];
}

@compute @workgroup_size(WGN, 1, 1)
fn NAME(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let M = ndims.x;
    let N = ndims.y;
    let K = ndims.z;
    let tiles_n = (N + TNu - 1u) / TNu;
    let tile = wid.y * nwg.x + wid.x;
    if (tile >= ((M + TMu - 1u) / TMu) * tiles_n) { return; }
    let ty = lid / (TNu / 8u);
    let tx = lid % (TNu / 8u);
    for (var i = 0u; i < 64u; i = i + 1u) {
        let row = (tile / tiles_n) * TMu + ty * 4u + (i / 8u) % 4u + (i / 32u) * (TMu / 2u);
        let col = (tile % tiles_n) * TNu + tx * 4u + i % 4u + ((i / 4u) % 2u) * (TNu / 2u);
        if (row < M && col < N) {
            var s = 0.0;
            for (var k = 0u; k < K; k = k + 1u) { s = fma(op_a(row, k), op_b(k, col), s); }
            if ((ndims.w & 4u) != 0u) { s = s + nbias[col]; }
            if ((ndims.w & 8u) != 0u) { s = nc[row * N + col] + s; }
            nc[row * N + col] = s;
        }
    }
}
"""


def shapes(quick):
    if quick:
        return [("sq 256", 256, 256, 256, 0), ("dW 96x288x512", 96, 288, 512, sc.TRANS_A),
                ("dX 136x200x68", 136, 200, 68, sc.TRANS_B)]
    out = [("2048x2048x2048", 2048, 2048, 2048, 0), ("4096x4096x4096", 4096, 4096, 4096, 0)]
    d, rows, vocab = 768, 2048, 256
    for name, din, dout in (("qkv", d, 3 * d), ("attn_proj", d, d), ("mlp_up", d, 4 * d),
                            ("mlp_down", 4 * d, d), ("logits", d, vocab)):
        out.append((f"gpt110m {name} fwd", rows, dout, din, 0))
        out.append((f"gpt110m {name} dX", rows, din, dout, sc.TRANS_B))
        out.append((f"gpt110m {name} dW", din, dout, rows, sc.TRANS_A))
    return out


def plan_splits(M, N, K):
    """native_plan()'s S below 66 tiles (reference.cpp), else 0."""
    t = sc.tiles(M, N)
    if t >= 66:
        return 0
    want, best = min(16, (384 + t - 1) // t), 1
    for S in range(2, want + 1):
        if not sc.splitk_ok(M, N, K, S) or sc.chunk(K, S) < 192:
            break
        best = S
    return best if best > 1 else 0


def main():
    root = sys.argv[1]
    quick = "--quick" in sys.argv
    final = "--final" in sys.argv
    gemm = "--gemm" in sys.argv
    wide = "--wide" in sys.argv
    final = final or gemm or wide
    ports = os.path.join(root, "ports")
    cases = os.path.join(root, "cases")
    os.makedirs(ports, exist_ok=True)
    os.makedirs(cases, exist_ok=True)
    for name, (tm, tn, bk, st, wt) in ({} if final else CONFIGS).items():
        assert st * bk * (tm + tn) * 4 <= 16384, name
        with open(os.path.join(ports, name + ".comp"), "w") as f:
            f.write("#version 450\n// matmul_native tile sweep: %s (sweep.py)\n" % name)
            f.write("#define TM %d\n#define TN %d\n#define BK %d\n#define STAGES %d\n"
                    "#define WARP_TILED %d\n" % (tm, tn, bk, st, wt))
            f.write('#include "tile_sweep.glsl"\n')
        with open(os.path.join(ports, name + ".wgsl"), "w") as f:
            f.write(WGSL.replace("NAME", name).replace("WGN", str(tm * tn // 64))
                    .replace("TM", str(tm)).replace("TN", str(tn)))
    for name, (tm, tn, bk, st) in (WIDE if wide else {}).items():
        assert st * bk * (tm + tn) * 4 <= 16384, name
        with open(os.path.join(ports, name + ".comp"), "w") as f:
            f.write(wide_port(name, tm, tn, bk, st))
        with open(os.path.join(ports, name + ".wgsl"), "w") as f:
            f.write(WGSL_WIDE.replace("NAME", name).replace("WGN", str(tm * tn // 128))
                    .replace("TM", str(tm)).replace("TN", str(tn)))
    index = []
    for label, M, N, K, flags in shapes(quick):
        ncols = min(64, N)
        vals, mags = sc.expected_row0(M, N, K, flags, ncols)
        bound = 17.0 / 16.0 * K + 1
        variants = [("hand_native", "matmul/matmul_native", 128, 128),
                    ("hand_n64", "matmul/matmul_native_n64", 128, 64)]
        if final:
            variants = [("hand_native", "matmul/matmul_native", 128, 128),
                        ("hand_k16", "matmul/matmul_native_k16", 128, 64)]
            if label.startswith("gpt110m") and sc.tiles(M, N) >= 66:
                variants.append(("wgsl_k16", "matmul_native/matmul_native_k16", 128, 64))
            if gemm:
                variants = [("hand_k16", "matmul/matmul_native_k16", 128, 64),
                            ("hand_bmm", "matmul/matmul_batched", 64, 64)]
            if wide:
                variants = [("hand_native", "matmul/matmul_native", 128, 128),
                            ("hand_k16", "matmul/matmul_native_k16", 128, 64)]
                variants += [(n, n + "/" + n, c[0], c[1]) for n, c in WIDE.items()]
            S = plan_splits(M, N, K)
            if S:
                variants.append((f"hand_splitk_s{S}", None, 128, 128))
        else:
            variants += [(n, n + "/" + n, c[0], c[1]) for n, c in CONFIGS.items()]
        for vname, kern, tm, tn in variants:
            full = f"{label} {M}x{N}x{K}"
            cid = (full + " " + vname).replace(" ", "_")
            folder = os.path.join(cases, cid)
            os.makedirs(folder, exist_ok=True)
            sc.write_npy(os.path.join(folder, "c.expected.npy"), vals)
            sc.write_npy(os.path.join(folder, "c.magnitude.npy"), mags)
            gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",
                                                "seed": seed, "lo": -1, "hi": 1}}
            disp = [{"kernel": kern, "label": "C = op(A) op(B)",
                     "bindings": [sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                                  sc.binding(3, "bias"), sc.binding(4, values=[M, N, K, flags])],
                     "workgroups_1d": sc.tiles(M, N, tm, tn)}]
            bufs = {"a": gen(11, M * K), "b": gen(12, K * N),
                    "bias": {"dtype": "f32", "count": 1, "fill": "poison"},
                    "c": {"dtype": "f32", "count": M * N, "fill": "poison"}}
            if kern == "matmul/matmul_batched":  # BmmDims: mnkf, ld (lda, ldb, ldc, H), ab, cb, off
                lda = M if flags & sc.TRANS_A else K
                ldb = K if flags & sc.TRANS_B else N
                disp = [{"kernel": kern, "label": "C = op(A) op(B)",
                         "bindings": [sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                                      sc.binding(3, values=[M, N, K, flags, lda, ldb, N, 1] +
                                                 [0] * 12)],
                         "workgroups_1d": sc.tiles(M, N, 64, 64)}]
                del bufs["bias"]
            if kern is None:  # the hand split-K pair (S in bits 16..23 of the flags)
                S = int(vname.split("_s")[-1])
                kern = "matmul/matmul_native_splitk"
                bufs["part"] = {"dtype": "f32", "count": S * M * N, "fill": "poison"}
                disp = [{"kernel": kern, "label": "partials",
                         "bindings": [sc.binding(0, "a"), sc.binding(1, "b"),
                                      sc.binding(2, "part"),
                                      sc.binding(4, values=[M, N, K, (flags & 3) | (S << 16)])],
                         "workgroups_1d": sc.tiles(M, N) * S},
                        {"kernel": "matmul/matmul_splitk_reduce", "label": "reduce",
                         "bindings": [sc.binding(0, "part"), sc.binding(1, "c"),
                                      sc.binding(2, "bias"),
                                      sc.binding(3, values=[M, N, S, flags & 12])],
                         "workgroups_1d": (M * N + 255) // 256}]
            case = {
                "format": "wgslvk-case/1", "kernel": kern, "case": cid,
                "description": f"{full} ({vname}), flags {flags}",
                "provenance": {"generator": "wgsl_ports/matmul/sweep/sweep.py"},
                "buffers": bufs,
                "dispatches": disp,
                "checks": [{"buffer": "c", "expected": "c.expected.npy", "range": [0, ncols],
                            "compare": "ulp", "ulp": bound,
                            "magnitude": {"file": "c.magnitude.npy"},
                            "reason": "C[0, :64]: bound_ulps(K) ULPs of S, any order"}],
            }
            with open(os.path.join(folder, "case.json"), "w") as f:
                json.dump(case, f, indent=1)
            index.append({"folder": cid, "label": label, "M": M, "N": N, "K": K, "flags": flags,
                          "variant": vname, "tiles": sc.tiles(M, N),
                          "workgroups": sc.tiles(M, N, tm, tn)})
    with open(os.path.join(cases, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    nports = len(WIDE) if wide else 0 if final else len(CONFIGS)
    print(f"{nports} ports, {len(index)} cases in {root}")


if __name__ == "__main__":
    main()
