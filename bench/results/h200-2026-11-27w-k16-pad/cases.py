#!/usr/bin/env python3
"""Measurement only (issue 23, session 14, H8): the built-in matmul_native_k16 at the gpt110m
products of run.sh here, one per store path of its workgroup tiles: mlp_up fwd (flags 0: A's
transposing scalar stores, B's vec4 stores), mlp_up dX (TRANS_B: A's and B's transposing stores),
mlp_up dW (TRANS_A: vec4 stores only, the control), 4096^3 (flags 0). The cases of
../h200-2026-11-27r-fp32-sass/cases.py (same generators, seeds, check) plus dX.

usage: cases.py OUT   writes OUT/<case>/ (wgslvk-case/1) for `wgslvk bench --cases OUT`.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
sys.path.insert(0, os.path.join(ROOT, "wgsl_ports/matmul"))
import splitk_cases as sc  # noqa: E402

SHAPES = [("4096^3", 4096, 4096, 4096, 0),
          ("gpt110m mlp_up fwd", 2048, 3072, 768, 0),
          ("gpt110m mlp_up dX", 2048, 768, 3072, sc.TRANS_B),
          ("gpt110m mlp_up dW", 768, 3072, 2048, sc.TRANS_A)]


def main():
    root = sys.argv[1]
    kern = "matmul/matmul_native_k16"
    for label, M, N, K, flags in SHAPES:
        vals, mags = sc.expected_row0(M, N, K, flags, 64)
        cid = f"{label} {M}x{N}x{K} k16".replace(" ", "_").replace("^", "")
        folder = os.path.join(root, cid)
        os.makedirs(folder, exist_ok=True)
        sc.write_npy(os.path.join(folder, "c.expected.npy"), vals)
        sc.write_npy(os.path.join(folder, "c.magnitude.npy"), mags)
        gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",
                                            "seed": seed, "lo": -1, "hi": 1}}
        bufs = {"a": gen(11, M * K), "b": gen(12, K * N),
                "bias": {"dtype": "f32", "count": 1, "fill": "poison"},
                "c": {"dtype": "f32", "count": M * N, "fill": "poison"}}
        binds = [sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                 sc.binding(3, "bias"), sc.binding(4, values=[M, N, K, flags])]
        check = {"buffer": "c", "expected": "c.expected.npy", "range": [0, 64],
                 "compare": "ulp", "ulp": 17.0 / 16.0 * K + 1,
                 "magnitude": {"file": "c.magnitude.npy"},
                 "reason": "C[0, :64]: bound_ulps(K) ULPs of S, any order"}
        case = {"format": "wgslvk-case/1", "kernel": kern, "case": cid,
                "description": f"{label} {M}x{N}x{K}, flags {flags}",
                "provenance": {"generator": "bench/results/h200-2026-11-27w-k16-pad/cases.py"},
                "buffers": bufs,
                "dispatches": [{"kernel": kern, "label": "C = op(A) op(B)", "bindings": binds,
                                "workgroups_1d": sc.tiles(M, N, 128, 64)}],
                "checks": [check]}
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump(case, f, indent=1)
    print(f"{len(SHAPES)} cases in {root}")


if __name__ == "__main__":
    main()
