#!/usr/bin/env python3
"""Measurement only (issue 23, session 14, H5): matmul_native_k16's K loop taken apart, beside the
hand native / k16 / batched kernels, at 4096^3 and two gpt110m products (run.sh here).

usage: cases.py OUT [--quick] [--hoist]   writes OUT/ports/k16_*.comp (+ the ABI .wgsl sweep.py writes for a
128 x 64 tile on 128 invocations) and OUT/cases/ (wgslvk-case/1, index.json as sweep.py's).
Ports, each matmul_native_k16.comp with one edit (wgsl.glsl inlined: no include directory needed):
  k16_copy  unchanged: the run-time port path against the built-in hand port
  k16_nc    no bounds tests in the global loads (every load unconditional): correct only where the
            tiles and K stages are whole (4096^3 and the gpt110m shapes here: the check says so)
  k16_ng    no global loads and no workgroup stores inside the K loop (the stage-0 tile is reused):
            LDS + FFMA + 2 barriers per stage; wrong results, so its case checks only that A[0]
            is untouched (an ablation, not a kernel)
  k16_nb    k16_ng without the loop's two barriers: LDS + FFMA only (wrong results, as k16_ng)
--hoist (added after this folder's call, for the next): also wgsl_ports/matmul/sweep/k16_hoist.comp
  as the port k16_hoist (run.sh reads and times every port it finds).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
sys.path.insert(0, os.path.join(ROOT, "wgsl_ports/matmul"))
sys.path.insert(0, os.path.join(ROOT, "wgsl_ports/matmul/sweep"))
import splitk_cases as sc  # noqa: E402
import sweep  # noqa: E402

LOADS = """        if (more) {  // the next stage's global loads are in flight during this stage's math
            uint k0 = (t + 1u) * KK;
            va0 = k16_load_a(lid, row0, k0);
            va1 = k16_load_a(lid + KWG, row0, k0);
            va2 = k16_load_a(lid + 2u * KWG, row0, k0);
            va3 = k16_load_a(lid + 3u * KWG, row0, k0);
            vb0 = k16_load_b(lid, col0, k0);
            vb1 = k16_load_b(lid + KWG, col0, k0);
        }
"""
STORES = """        if (more) {
            k16_store_a(lid, va0);
            k16_store_a(lid + KWG, va1);
            k16_store_a(lid + 2u * KWG, va2);
            k16_store_a(lid + 3u * KWG, va3);
            k16_store_b(lid, vb0);
            k16_store_b(lid + KWG, vb1);
        }
"""
BARRIERS = ["        barrier();  // every invocation is done reading this stage\n",
            "        }\n        barrier();\n    }\n"]


def variants():
    src = open(os.path.join(ROOT, "wgsl_ports/matmul/matmul_native_k16.comp")).read()
    common = open(os.path.join(ROOT, "wgsl_ports/common/wgsl.glsl")).read()
    src = src.replace('#include "wgsl.glsl"\n', common)
    out = {"k16_copy": src}
    nc = src
    for cond in ("if (k < K && m < M) ", "if (m < M && k < K) ", "if (n < N && k < K) ",
                 "if (k < K && n < N) "):
        assert nc.count(cond) == 1, cond
        nc = nc.replace(cond, "")
    out["k16_nc"] = nc
    assert src.count(LOADS) == 1 and src.count(STORES) == 1
    ng = src.replace(LOADS, "").replace(STORES, "")
    out["k16_ng"] = ng
    assert ng.count(BARRIERS[0]) == 1
    nb = ng.replace(BARRIERS[0], "").replace("        barrier();\n    }\n\n    uint rlo", "    }\n\n    uint rlo")
    assert nb.count("barrier();") == 1, nb.count("barrier();")  # the one before the loop
    out["k16_nb"] = nb
    if "--hoist" in sys.argv:
        out["k16_hoist"] = open(os.path.join(ROOT, "wgsl_ports/matmul/sweep/k16_hoist.comp")).read()
    return out


def main():
    root = sys.argv[1]
    quick = "--quick" in sys.argv
    ports, cases = os.path.join(root, "ports"), os.path.join(root, "cases")
    os.makedirs(ports, exist_ok=True)
    os.makedirs(cases, exist_ok=True)
    for name, text in variants().items():
        with open(os.path.join(ports, name + ".comp"), "w") as f:
            f.write(text.replace("// Port of matmul_native_k16", "// %s (cases.py, measurement "
                                 "only): port of matmul_native_k16" % name, 1))
        with open(os.path.join(ports, name + ".wgsl"), "w") as f:
            f.write(sweep.WGSL.replace("NAME", name).replace("WGN", "128")
                    .replace("TM", "128").replace("TN", "64"))
    shapes = [("4096^3", 4096, 4096, 4096, 0),
              ("gpt110m mlp_up fwd", 2048, 3072, 768, 0),
              ("gpt110m mlp_up dW", 768, 3072, 2048, sc.TRANS_A)]
    if quick:
        shapes = [("quick", 256, 192, 64, 0), ("quick dW", 128, 192, 96, sc.TRANS_A)]
    index = []
    for label, M, N, K, flags in shapes:
        vals, mags = sc.expected_row0(M, N, K, flags, 64)
        kinds = [("hand_native", "matmul/matmul_native", 128, 128),
                 ("hand_k16", "matmul/matmul_native_k16", 128, 64),
                 ("hand_bmm", "matmul/matmul_batched", 64, 64)]
        kinds += [(n, n + "/" + n, 128, 64) for n in variants()]
        for vname, kern, tm, tn in kinds:
            cid = (f"{label} {M}x{N}x{K} {vname}").replace(" ", "_").replace("^", "")
            folder = os.path.join(cases, cid)
            os.makedirs(folder, exist_ok=True)
            sc.write_npy(os.path.join(folder, "c.expected.npy"), vals)
            sc.write_npy(os.path.join(folder, "c.magnitude.npy"), mags)
            sc.write_npy(os.path.join(folder, "a0.npy"), [sc.gen(11, 0)])
            gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",
                                                "seed": seed, "lo": -1, "hi": 1}}
            bufs = {"a": gen(11, M * K), "b": gen(12, K * N),
                    "bias": {"dtype": "f32", "count": 1, "fill": "poison"},
                    "c": {"dtype": "f32", "count": M * N, "fill": "poison"}}
            binds = [sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                     sc.binding(3, "bias"), sc.binding(4, values=[M, N, K, flags])]
            if kern == "matmul/matmul_batched":  # as sweep.py --gemm: one product, H 1
                lda = M if flags & sc.TRANS_A else K
                ldb = K if flags & sc.TRANS_B else N
                binds = [sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                         sc.binding(3, values=[M, N, K, flags, lda, ldb, N, 1] + [0] * 12)]
                del bufs["bias"]
            check = {"buffer": "c", "expected": "c.expected.npy", "range": [0, 64],
                     "compare": "ulp", "ulp": 17.0 / 16.0 * K + 1,
                     "magnitude": {"file": "c.magnitude.npy"},
                     "reason": "C[0, :64]: bound_ulps(K) ULPs of S, any order"}
            if vname in ("k16_ng", "k16_nb"):
                check = {"buffer": "a", "expected": "a0.npy", "range": [0, 1], "compare": "exact",
                         "reason": "an ablation computes wrong values: only A[0] untouched"}
            case = {"format": "wgslvk-case/1", "kernel": kern, "case": cid,
                    "description": f"{label} {M}x{N}x{K} ({vname}), flags {flags}",
                    "provenance": {"generator": "bench/results/h200-2026-11-27r-fp32-sass/cases.py"},
                    "buffers": bufs,
                    "dispatches": [{"kernel": kern, "label": "C = op(A) op(B)", "bindings": binds,
                                    "workgroups_1d": sc.tiles(M, N, tm, tn)}],
                    "checks": [check]}
            with open(os.path.join(folder, "case.json"), "w") as f:
                json.dump(case, f, indent=1)
            index.append({"folder": cid, "label": label, "M": M, "N": N, "K": K, "flags": flags,
                          "variant": vname, "tiles": sc.tiles(M, N),
                          "workgroups": sc.tiles(M, N, tm, tn)})
    with open(os.path.join(cases, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{len(variants())} ports, {len(index)} cases in {root}")


if __name__ == "__main__":
    main()
