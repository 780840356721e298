#!/usr/bin/env python3
"""The built-in matmul_batched of two wgslvk builds, bit for bit (hoist_check.py's method for
matmul_batched; session 14: the loads' work hoisted out of its K loop against the kernel before).
Every element of C (the whole wide buffer: products, gaps and untouched rows) of OLD's kernel,
NEW's and NEW's WGSL through our front end (`--translate`) must be the same bits, on 5 shapes
with edge tiles, K tails and a tile row whose K range is empty (200x44x72 with K_FROM_ROW) x 10
flag sets (TRANS_A 1, TRANS_B 2, ACCUMULATE 8, CAUSAL_TILES 16, K_FROM_ROW 32, K_TO_ROW 64 and
mixtures), each a batch of 2 x 2 products (z = o H + i) inside wider matrices with offsets and
both strides. Each case is also checked against a double reference of the kernel's definition
(the sum over the tile's k range, skipped tiles keep the old C) within bound_ulps(K + 2); C
starts as random values, not zeros.

usage: batched_hoist_check.py OLD_WGSLVK NEW_WGSLVK OUT_DIR   (`bench --cases` on the default
       device, e.g. lavapipe; exit 1 when any element differs or a check fails)
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

KERN = "matmul/matmul_batched"
O, H = 2, 2
SHAPES = ((72, 68, 52), (128, 64, 16), (136, 40, 132), (200, 44, 72), (64, 136, 200))
FLAGS = (0, 1, 2, 3, 9, 10, 18, 41, 72, 123)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_case(cases, M, N, K, fl):
    ta, tb = fl & 1, fl & 2
    ra, wa = (K, M) if ta else (M, K)  # stored rows, width of one A_z
    rb, wb = (N, K) if tb else (K, N)
    lda, ldb, ldc = wa * H + 4, wb * H + 8, N * H + 4
    offa, offb, offc = 4, 8, 4
    abx, aby, abz, abw = ra * lda, wa, rb * ldb, wb
    cbx, cby = M * ldc, N
    na, nb, nc = offa + O * abx, offb + O * abz, offc + O * cbx + 4
    A = [sc.gen(11, i) for i in range(na)]
    B = [sc.gen(12, i) for i in range(nb)]
    C0 = [sc.gen(14, i) for i in range(nc)]
    exp, mag = list(C0), [abs(c) for c in C0]
    for o in range(O):
        for h in range(H):
            ba, bb, bc = offa + o * abx + h * aby, offb + o * abz + h * abw, offc + o * cbx + h * cby
            opa = lambda m, k: A[ba + (k * lda + m if ta else m * lda + k)]  # noqa: E731
            opb = lambda k, n: B[bb + (n * ldb + k if tb else k * ldb + n)]  # noqa: E731
            for m in range(M):
                row0 = m // 64 * 64
                kbeg = min(K, row0) if fl & 32 else 0
                kend = min(K, row0 + 64) if fl & 64 else K
                arow = [opa(m, k) for k in range(kbeg, kend)]
                for n in range(N):
                    if fl & 16 and n // 64 * 64 > row0 + 63:
                        continue  # tile not computed: old C stays
                    idx = bc + m * ldc + n
                    s = t = 0.0
                    for a, k in zip(arow, range(kbeg, kend)):
                        p = a * opb(k, n)
                        s += p
                        t += abs(p)
                    if fl & 8:
                        s += C0[idx]
                        t += abs(C0[idx])
                    exp[idx], mag[idx] = f32(s), t
    cid = f"s{M}x{N}x{K}_f{fl}"
    d = os.path.join(cases, cid)
    os.makedirs(d, exist_ok=True)
    sc.write_npy(os.path.join(d, "c.expected.npy"), exp)
    sc.write_npy(os.path.join(d, "c.magnitude.npy"), mag)
    gen = lambda seed, n: {"generate": {"dtype": "f32", "count": n, "kind": "uniform",  # noqa: E731
                                        "seed": seed, "lo": -1, "hi": 1}}
    dims = [M, N, K, fl, lda, ldb, ldc, H, abx, aby, abz, abw, cbx, cby, 0, 0, offa, offb, offc, 0]
    tiles = ((M + 63) // 64) * ((N + 63) // 64)
    case = {"format": "wgslvk-case/1", "kernel": KERN, "case": cid, "description": cid,
            "provenance": {"generator": "wgsl_ports/matmul/sweep/batched_hoist_check.py"},
            "buffers": {"a": gen(11, na), "b": gen(12, nb), "c": gen(14, nc)},
            "dispatches": [{"kernel": KERN, "label": "C_z (+)= op(A_z) op(B_z)", "bindings": [
                sc.binding(0, "a"), sc.binding(1, "b"), sc.binding(2, "c"),
                sc.binding(3, values=dims)], "workgroups": [tiles, 1, O * H]}],
            "checks": [{"buffer": "c", "expected": "c.expected.npy", "range": [0, nc],
                        "compare": "ulp", "ulp": 17.0 / 16.0 * (K + 2) + 1,
                        "magnitude": {"file": "c.magnitude.npy"},
                        "reason": "every element of the buffer: bound_ulps(K + 2) of the sum over "
                                  "the tile's k range, any order; unwritten ones the old C"}]}
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case, f, indent=1)
    return cid


def run(exe, cases, dump, extra):
    r = subprocess.run([exe, "bench", "--cases", cases, "--reps", "1", "--warm-ms", "0",
                        "--dump", dump] + extra, capture_output=True, text=True,
                       env=dict(os.environ, WGSLVK_SOURCE_DIR=ROOT))
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("cases/")]
    bad = [ln for ln in rows if " ok (" not in ln]
    print(f"{exe} {' '.join(extra)}: rc {r.returncode}, {len(rows)} rows, {len(bad)} not ok")
    if r.returncode or bad or not rows:
        print(r.stdout[-3000:], r.stderr[-2000:])
    return r.returncode == 0 and not bad and rows


def actual(dump, cid):
    for top, _, files in os.walk(os.path.join(dump, "actual")):
        if os.path.basename(top) == cid and "c.actual.npy" in files:
            return open(os.path.join(top, "c.actual.npy"), "rb").read()
    return None


def main():
    old, new, out = sys.argv[1:4]
    cases = os.path.join(out, "cases")
    cids = [write_case(cases, M, N, K, fl) for M, N, K in SHAPES for fl in FLAGS]
    runs = [("old", old, []), ("new", new, []), ("new_wgsl", new, ["--translate"])]
    ok = all([run(exe, cases, os.path.join(out, "dump_" + n), x) for n, exe, x in runs])
    same = differ = 0
    for cid in cids:
        bits = [actual(os.path.join(out, "dump_" + n), cid) for n, _, _ in runs]
        if bits[0] is not None and bits.count(bits[0]) == len(bits):
            same += 1
        else:
            differ += 1
            print("bits differ (or missing):", cid, [b is None for b in bits])
    print(f"{same} of {len(cids)} cases bit-identical in all {len(runs)} runs, {differ} differ")
    sys.exit(0 if ok and not differ else 1)


if __name__ == "__main__":
    main()
