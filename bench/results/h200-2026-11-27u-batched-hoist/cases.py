#!/usr/bin/env python3
"""Case folders (wgslvk-case/1) of the gpt110m trainer's matmul_batched products for this call:
the three biased forward products as native_auto_fwd's second dispatch runs them (C += A B, one
product, C the bias rows: random here) and the six attention products of one layer (B 8 x H 12
= 96 products of T 256, head_dim 64, flags and row lengths as apps/gpt/gpu_model.cpp's bmm32 calls
pass them; A and B read in place from qkv / y / dy shaped buffers; every C starts at offset 0).
Inputs uniform in [-1, 1] from wgslvk's generator; checked: C[0, :64] of product 0 against a
double reference of the kernel's definition (the tile's k range), bound_ulps(K + 2).
usage: cases.py OUT_DIR
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../wgsl_ports/matmul"))
import splitk_cases as sc  # noqa: E402

T, NH, HD, NB = 256, 12, 64, 8
R, C3, C = NB * T, 3 * 768, 768
TT = T * T
# name, M, N, K, flags, O, H, (lda, abx, aby, offa, rows_a), (ldb, abz, abw, offb, rows_b), (ldc, cbx, cby, rows_c)
PRODUCTS = [
    ("fwd_qkv", R, C3, C, 8, 1, 1, (C, 0, 0, 0, R), (C3, 0, 0, 0, C), (C3, 0, 0, R)),
    ("fwd_attn_proj", R, C, C, 8, 1, 1, (C, 0, 0, 0, R), (C, 0, 0, 0, C), (C, 0, 0, R)),
    ("fwd_mlp_down", R, C, 4 * C, 8, 1, 1, (4 * C, 0, 0, 0, R), (C, 0, 0, 0, 4 * C), (C, 0, 0, R)),
    ("att_S_QKt", T, T, HD, 18, NB, NH, (C3, T * C3, HD, 0, R), (C3, T * C3, HD, C, R),
     (T, NH * TT, TT, NB * NH * T)),
    ("att_O_PV", T, HD, T, 64, NB, NH, (T, NH * TT, TT, 0, NB * NH * T),
     (C3, T * C3, HD, 2 * C, R), (C, T * C, HD, R)),
    ("att_dV_PtdO", T, HD, T, 33, NB, NH, (T, NH * TT, TT, 0, NB * NH * T),
     (C, T * C, HD, 0, R), (C3, T * C3, HD, R)),
    ("att_dP_dOVt", T, T, HD, 18, NB, NH, (C, T * C, HD, 0, R), (C3, T * C3, HD, 2 * C, R),
     (T, NH * TT, TT, NB * NH * T)),
    ("att_dQ_dSK", T, HD, T, 64, NB, NH, (T, NH * TT, TT, 0, NB * NH * T),
     (C3, T * C3, HD, C, R), (C3, T * C3, HD, R)),
    ("att_dK_dStQ", T, HD, T, 33, NB, NH, (T, NH * TT, TT, 0, NB * NH * T),
     (C3, T * C3, HD, 0, R), (C3, T * C3, HD, R)),
]


def main():
    out = sys.argv[1]
    for name, M, N, K, fl, O, H, (lda, abx, aby, offa, ra), (ldb, abz, abw, offb, rb), \
            (ldc, cbx, cby, rc) in PRODUCTS:
        na, nb, nc = offa + ra * lda, offb + rb * ldb, rc * ldc
        ncols = min(64, N)
        kbeg, kend = 0, (min(K, 64) if fl & 64 else K)
        exp, mag = [], []
        for n in range(ncols):
            s = t = 0.0
            for k in range(kbeg, kend):
                a = sc.gen(11, offa + (k * lda if fl & 1 else k))
                b = sc.gen(12, offb + (n * ldb + k if fl & 2 else k * ldb + n))
                s += a * b
                t += abs(a * b)
            if fl & 8:
                s += sc.gen(14, n)
                t += abs(sc.gen(14, n))
            exp.append(struct.unpack("<f", struct.pack("<f", s))[0])
            mag.append(t)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        sc.write_npy(os.path.join(d, "c.expected.npy"), exp)
        sc.write_npy(os.path.join(d, "c.magnitude.npy"), mag)
        gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",  # noqa
                                            "seed": seed, "lo": -1, "hi": 1}}
        dims = [M, N, K, fl, lda, ldb, ldc, H, abx, aby, abz, abw, cbx, cby, 0, 0, offa, offb, 0, 0]
        tiles = ((M + 63) // 64) * ((N + 63) // 64)
        case = {"format": "wgslvk-case/1", "kernel": "matmul/matmul_batched", "case": name,
                "description": f"gpt110m {name}: {O * H} x {M}x{N}x{K}, flags {fl}",
                "provenance": {"generator": "bench/results/h200-2026-11-27u-batched-hoist/cases.py"},
                "buffers": {"a": gen(11, na), "b": gen(12, nb), "c": gen(14, nc)},
                "dispatches": [{"kernel": "matmul/matmul_batched", "label": name, "bindings": [
                    sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                    sc.binding(3, values=dims)], "workgroups": [tiles, 1, O * H]}],
                "checks": [{"buffer": "c", "expected": "c.expected.npy", "range": [0, ncols],
                            "compare": "ulp", "ulp": 17.0 / 16.0 * (K + 2) + 1,
                            "magnitude": {"file": "c.magnitude.npy"},
                            "reason": "C[0, :64] of product 0: bound_ulps(K + 2), any order"}]}
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(case, f, indent=1)
    print(len(PRODUCTS), "cases in", out)


if __name__ == "__main__":
    main()
