#!/usr/bin/env python3
"""Writes wgslvk-case/1 folders timing matmul_native's variants at the GPT shapes, for
`wgslvk bench --cases DIR --wgsl wgsl_ports/matmul/matmul_native.wgsl` (wgsl_ports/matmul/gpu_matmul.sh).

Per shape: the hand port of matmul_native ("matmul/matmul_native"), its n64 variant, and the
WGSL as wgslvk's front end translates it ("matmul_native/<entry>": matmul_native and the split-K
pair matmul_native_splitk + matmul_splitk_reduce at several slice counts), so a binary built before
the split-K kernels can time them, and the translated split-K is compared with the translated
native of the same run. Inputs: `generate` buffers (uniform [-1, 1), seeds 11 and 12, as bench.cpp);
check: the first (up to) 64 elements of C against a double reference rounded once, within
bound_ulps(n) = 17/16 n + 1 ULPs of S (matmul/reference.hpp). Pure Python, no numpy.

usage: splitk_cases.py OUT_DIR [--quick]
"""
import json
import os
import struct
import sys

MASK = (1 << 64) - 1


def splitmix64_at(seed, i):
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def gen(seed, i, lo=-1.0, hi=1.0):
    u = float(splitmix64_at(seed, i) >> 40) * 2.0**-24
    return struct.unpack("<f", struct.pack("<f", lo + (hi - lo) * u))[0]


def write_npy(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


TRANS_A, TRANS_B = 1, 2


def tiles(M, N, tm=128, tn=128):
    return ((M + tm - 1) // tm) * ((N + tn - 1) // tn)


def chunk(K, S):
    stages = (K + 7) // 8
    return ((stages + S - 1) // S) * 8


def splitk_ok(M, N, K, S):
    return 2 <= S <= 255 and chunk(K, S) * (S - 1) < K and S * M * N < 2**32


def expected_row0(M, N, K, flags, ncols):
    """C[0, 0..ncols) in double and its magnitude S."""
    vals, mags = [], []
    a_row = [gen(11, (k * M) if flags & TRANS_A else k) for k in range(K)]
    for j in range(ncols):
        s = m = 0.0
        for k in range(K):
            b = gen(12, (j * K + k) if flags & TRANS_B else (k * N + j))
            p = a_row[k] * b
            s += p
            m += abs(p)
        vals.append(struct.unpack("<f", struct.pack("<f", s))[0])
        mags.append(m)
    return vals, mags


def shapes(quick):
    out = []
    if quick:
        out.append(("sq 256", 256, 256, 256, 0))
        out.append(("dW 96x288x512", 96, 288, 512, TRANS_A))
        return out
    for n in (2048, 4096):
        out.append((f"{n}x{n}x{n}", n, n, n, 0))
    d = 768
    for prefix, rows, vocab in (("", 4096, 16384), ("gpt110m ", 2048, 256)):
        for name, din, dout in (("qkv", d, 3 * d), ("attn_proj", d, d), ("mlp_up", d, 4 * d),
                                ("mlp_down", 4 * d, d), ("logits", d, vocab)):
            out.append((f"{prefix}{name} fwd", rows, dout, din, 0))
            out.append((f"{prefix}{name} dX", rows, din, dout, TRANS_B))
            out.append((f"{prefix}{name} dW", din, dout, rows, TRANS_A))
    return out


def binding(b, buf=None, values=None):
    e = {"group": 0, "binding": b}
    if buf is not None:
        e["buffer"] = buf
    else:
        e["values"] = {"u32": values}
    return e


def main():
    root = sys.argv[1]
    quick = "--quick" in sys.argv
    os.makedirs(root, exist_ok=True)
    index = []
    for label, M, N, K, flags in shapes(quick):
        ncols = min(64, N)
        vals, mags = expected_row0(M, N, K, flags, ncols)
        bound = 17.0 / 16.0 * K + 1
        t = tiles(M, N)
        variants = [("hand_native", None), ("hand_n64", None), ("wgsl_native", None)]
        if t < 264:
            for S in (2, 3, 4, 6, 8, 12, 16):
                if splitk_ok(M, N, K, S) and chunk(K, S) >= 128 and t * S <= 1056:
                    variants.append((f"wgsl_splitk_s{S}", S))
        for vname, S in variants:
            full = f"{label} {M}x{N}x{K}"
            folder = os.path.join(root, (full + " " + vname).replace(" ", "_"))
            os.makedirs(folder, exist_ok=True)
            write_npy(os.path.join(folder, "c.expected.npy"), vals)
            write_npy(os.path.join(folder, "c.magnitude.npy"), mags)
            bufs = {
                "a": {"generate": {"dtype": "f32", "count": M * K, "kind": "uniform", "seed": 11,
                                   "lo": -1, "hi": 1}},
                "b": {"generate": {"dtype": "f32", "count": K * N, "kind": "uniform", "seed": 12,
                                   "lo": -1, "hi": 1}},
                "bias": {"dtype": "f32", "count": 1, "fill": "poison"},
                "c": {"dtype": "f32", "count": M * N, "fill": "poison"},
            }
            dims = [M, N, K, flags]
            if vname.startswith("hand_"):
                kern = "matmul/matmul_native" if vname == "hand_native" else "matmul/matmul_native_n64"
                wg = t if vname == "hand_native" else tiles(M, N, 128, 64)
                disp = [{"kernel": kern, "label": "C = op(A) op(B)",
                         "bindings": [binding(0, "a"), binding(1, "b"), binding(2, "c"),
                                      binding(3, "bias"), binding(4, values=dims)],
                         "workgroups_1d": wg}]
            elif S is None:
                disp = [{"kernel": "matmul_native/matmul_native", "label": "C = op(A) op(B)",
                         "bindings": [binding(0, "a"), binding(1, "b"), binding(2, "c"),
                                      binding(3, "bias"), binding(4, values=dims)],
                         "workgroups_1d": t}]
            else:
                bufs["part"] = {"dtype": "f32", "count": S * M * N, "fill": "poison"}
                disp = [{"kernel": "matmul_native/matmul_native_splitk", "label": "partials",
                         "bindings": [binding(0, "a"), binding(1, "b"), binding(2, "part"),
                                      binding(4, values=[M, N, K, (flags & 3) | (S << 16)])],
                         "workgroups_1d": t * S},
                        {"kernel": "matmul_native/matmul_splitk_reduce", "label": "reduce",
                         "bindings": [binding(0, "part"), binding(1, "c"), binding(2, "bias"),
                                      binding(3, values=[M, N, S, flags & 12])],
                         "workgroups_1d": (M * N + 255) // 256}]
            case = {
                "format": "wgslvk-case/1",
                "kernel": disp[0]["kernel"],
                "case": (full + " " + vname).replace(" ", "_"),
                "description": f"{full} ({vname}), flags {flags}",
                "provenance": {"generator": "wgsl_ports/matmul/splitk_cases.py"},
                "buffers": bufs,
                "dispatches": disp,
                "checks": [{
                    "buffer": "c", "expected": "c.expected.npy", "range": [0, ncols],
                    "compare": "ulp", "ulp": bound, "magnitude": {"file": "c.magnitude.npy"},
                    "reason": "C[0, :64]: bound_ulps(K) ULPs of S (matmul/reference.hpp), any order",
                }],
            }
            with open(os.path.join(folder, "case.json"), "w") as f:
                json.dump(case, f, indent=1)
            index.append({"folder": os.path.basename(folder), "label": label, "M": M, "N": N,
                          "K": K, "flags": flags, "variant": vname, "tiles": t})
    with open(os.path.join(root, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{len(index)} cases in {root}")


if __name__ == "__main__":
    main()
