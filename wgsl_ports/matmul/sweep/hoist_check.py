#!/usr/bin/env python3
"""A GLSL port of matmul_native_k16 (default: the shipped ../matmul_native_k16.comp) against the
built-in matmul_native_k16 of a wgslvk, e.g. one built from the tree before a change to the kernel
(session 14: the hoisted loads against the kernel before them): every element of C bit for bit, on 4 shapes with edge tiles and K tails (264x196x52, 128x64x16,
136x68x20, 256x128x36) x flags 0, TRANS_A, TRANS_B, both, ADD_BIAS | ACCUMULATE; each case also
checked against a double reference within bound_ulps(K + 2).

usage: hoist_check.py WGSLVK OUT_DIR [PORT.comp]   (runs `WGSLVK bench --cases` on the default device, e.g.
       lavapipe; exit 1 when any element differs). Takes ~20 s of Python for the references.
"""
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
sys.path.insert(0, os.path.dirname(HERE))
import splitk_cases as sc  # noqa: E402
import sweep  # noqa: E402

KERNELS = [("k16", "matmul/matmul_native_k16"), ("hoist", "k16_hoist/k16_hoist")]


def write_cases(cases):
    gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",
                                        "seed": seed, "lo": -1, "hi": 1}}
    for M, N, K in ((264, 196, 52), (128, 64, 16), (136, 68, 20), (256, 128, 36)):
        A = [sc.gen(11, i) for i in range(M * K)]
        B = [sc.gen(12, i) for i in range(K * N)]
        bias = [sc.gen(13, j) for j in range(N)]
        C0 = [sc.gen(14, i) for i in range(M * N)]
        for fl in (0, 1, 2, 3, 12):
            exp, mag = [], []
            for i in range(M):
                for j in range(N):
                    s = m = 0.0
                    for k in range(K):
                        p = ((A[k * M + i] if fl & 1 else A[i * K + k]) *
                             (B[j * K + k] if fl & 2 else B[k * N + j]))
                        s += p
                        m += abs(p)
                    for on, v in ((fl & 4, bias[j]), (fl & 8, C0[i * N + j])):
                        if on:
                            s += v
                            m += abs(v)
                    exp.append(struct.unpack("<f", struct.pack("<f", s))[0])
                    mag.append(m)
            for v, kern in KERNELS:
                cid = f"s{M}x{N}x{K}_f{fl}_{v}"
                d = os.path.join(cases, cid)
                os.makedirs(d, exist_ok=True)
                sc.write_npy(os.path.join(d, "c.expected.npy"), exp)
                sc.write_npy(os.path.join(d, "c.magnitude.npy"), mag)
                case = {"format": "wgslvk-case/1", "kernel": kern, "case": cid, "description": cid,
                        "provenance": {"generator": "wgsl_ports/matmul/sweep/hoist_check.py"},
                        "buffers": {"a": gen(11, M * K), "b": gen(12, K * N),
                                    "bias": gen(13, N), "c": gen(14, M * N)},
                        "dispatches": [{"kernel": kern, "label": "C", "bindings": [
                            sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                            sc.binding(3, "bias"), sc.binding(4, values=[M, N, K, fl])],
                            "workgroups_1d": sc.tiles(M, N, 128, 64)}],
                        "checks": [{"buffer": "c", "expected": "c.expected.npy",
                                    "range": [0, M * N], "compare": "ulp",
                                    "ulp": 17.0 / 16.0 * (K + 2) + 1,
                                    "magnitude": {"file": "c.magnitude.npy"},
                                    "reason": "every element: bound_ulps(K + 2), any order"}]}
                with open(os.path.join(d, "case.json"), "w") as f:
                    json.dump(case, f, indent=1)


def main():
    exe, out = sys.argv[1], sys.argv[2]
    port = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "matmul_native_k16.comp")
    cases, dump = os.path.join(out, "cases"), os.path.join(out, "dump")
    write_cases(cases)
    abi = os.path.join(out, "k16_hoist.wgsl")
    with open(abi, "w") as f:
        f.write(sweep.WGSL.replace("NAME", "k16_hoist").replace("WGN", "128")
                .replace("TM", "128").replace("TN", "64"))
    comp = os.path.join(out, "k16_hoist.comp")  # a port's kernel is named after its file
    with open(port) as src, open(comp, "w") as f:
        f.write(src.read())
    r = subprocess.run([exe, "bench", "--cases", cases, "--port", comp + ":" + abi, "--reps", "1",
                        "--warm-ms", "0", "--dump", dump], capture_output=True, text=True,
                       env=dict(os.environ, WGSLVK_SOURCE_DIR=ROOT))
    print(r.stdout[-3000:], r.stderr[-2000:])
    bad = [ln for ln in r.stdout.splitlines() if ln.startswith("cases/") and " ok (" not in ln]
    same = differ = 0
    for cid in sorted(os.listdir(cases)):
        if not cid.endswith("_k16"):
            continue
        a = os.path.join(dump, "actual/matmul/matmul_native_k16", cid, "c.actual.npy")
        b = os.path.join(dump, "actual/k16_hoist/k16_hoist", cid[:-4] + "_hoist", "c.actual.npy")
        if open(a, "rb").read() == open(b, "rb").read():
            same += 1
        else:
            differ += 1
            print("bits differ:", cid)
    print(f"{same} cases bit-identical, {differ} differ, {len(bad)} rows not ok")
    sys.exit(1 if differ or bad or r.returncode else 0)


if __name__ == "__main__":
    main()
