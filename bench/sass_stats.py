#!/usr/bin/env python3
"""Opcode statistics of the machine code NVIDIA's Vulkan driver made of any of our kernels
(measurement only; issue 23: wgsl_ports/matmul/README.md "Machine code of the fp32 GEMMs").

Input: a folder holding one driver shader disk cache per kernel (GLCACHE_ROOT/<name>/..., as
bench/results/h200-2026-11-27r-fp32-sass/run.sh makes them: `__GL_SHADER_DISK_CACHE_PATH` set per
`wgslvk inspect --stats` run) and that run's output (the "Binary Size" column says where the code
ends). The frames and the start of the code are found by bench/sgmm_sass.py (driver 580.159).
No disassembler: the opcode (bits 0-11), guard predicate (12-15), registers (Rd 16-23, Ra 24-31,
Rb 32-39, Rc 64-71), the memory width (bits 73-75: 4 = 32-bit, 5 = 64, 6 = 128) and the control
bits (stall 105-108, write/read scoreboard 110-115, wait mask 116-121) are read from the Volta-and-
later layout; the opcode names below are the ones that layout is known by (the 0x2/0x4/0x6/0x8/0xa/
0xc prefix is the operand form: register, immediate, constant, uniform register). Names checked
against the kernels' sources: 1024 FFMA = k16's 16 k x 64 fma of a stage, 64 LDS.128 = its 16 x 4
vec4 reads, 0xb1d = the barriers, 0x981 = LDG, 0x388 = STS.

usage: sass_stats.py STATS_TXT GLCACHE_ROOT [--range NAME:A:B ...] [--list NAME:A:B]
  Per kernel: registers, instructions, spills (LDL/STL), the whole kernel's classes, and one region:
  NAME:A:B (instructions A..B inclusive, read off --list), else the K loop found by auto_region().
"""
import collections
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sgmm_sass import code, frames  # noqa: E402

NAMES = {
    0x223: "FFMA", 0x221: "FADD", 0x220: "FMUL", 0x23c: "HMMA", 0x83b: "LDSM",
    0x984: "LDS", 0x388: "STS", 0x981: "LDG", 0x386: "STG", 0x986: "STG", 0x983: "LDL",
    0x387: "STL", 0xb82: "LDC", 0xab9: "ULDC",
    0xb1d: "BAR", 0x947: "BRA", 0x944: "BRA?", 0x945: "BSSY", 0x941: "BSYNC", 0x94d: "EXIT",
    0x918: "NOP",
    0x224: "IMAD", 0x424: "IMAD", 0x624: "IMAD", 0x824: "IMAD", 0xa24: "IMAD", 0xc24: "IMAD",
    0xe24: "IMAD", 0x225: "IMAD.WIDE", 0x210: "IADD3", 0x810: "IADD3", 0xa10: "IADD3",
    0x836: "VIADD", 0x211: "LEA", 0x811: "LEA", 0xa11: "LEA", 0xc11: "LEA", 0x212: "LOP3",
    0x812: "LOP3", 0xa12: "LOP3", 0x219: "SHF", 0x819: "SHF", 0x20c: "ISETP", 0xa0c: "ISETP",
    0xc0c: "ISETP", 0x81c: "PLOP3", 0x207: "SEL", 0x807: "SEL", 0xa07: "SEL",
    0x202: "MOV", 0xa02: "MOV", 0x805: "CS2R", 0x435: "HFMA2", 0x919: "S2R", 0x9c3: "S2UR",
}
CLASS = {
    "FFMA": "fma", "HMMA": "fma",
    "LDS": "shared", "STS": "shared", "LDSM": "shared",
    "LDG": "global", "STG": "global", "LDL": "local", "STL": "local",
    "BAR": "barrier",
    "BRA": "control", "BRA?": "control", "BSSY": "control", "BSYNC": "control", "EXIT": "control",
    "IMAD": "int/address", "IMAD.WIDE": "int/address", "IADD3": "int/address",
    "VIADD": "int/address", "LEA": "int/address", "LOP3": "int/address", "SHF": "int/address",
    "ISETP": "compare/predicate", "PLOP3": "compare/predicate", "SEL": "compare/predicate",
    "MOV": "move", "CS2R": "move", "HFMA2": "move",
}
WIDTH = {4: 32, 5: 64, 6: 128}


def name(lo):
    return NAMES.get(lo & 0xFFF, "op%03x" % (lo & 0xFFF))


def klass(lo):
    n = name(lo)
    return CLASS.get(n, "other (uniform, float, ...)" if n[0] != "o" else "unnamed")


def mem(lo, hi):
    n = name(lo)
    return n + ".%d" % WIDTH.get((hi >> 9) & 7, 0) if n in ("LDS", "STS", "LDG", "STG") else n


def load(root, stats):
    kernels = []
    for line in open(stats):
        m = re.match(r"^(\S+)/(\S+)\s+CS\s+\d+\s+(\d+)\s+(\d+)\s", line)
        if m and m.group(2) not in [k[0] for k in kernels]:
            bins = glob.glob(os.path.join(root, m.group(2), "**", "*.bin"), recursive=True)
            if bins:
                raws = [r for b in sorted(bins) for r in frames(open(b, "rb").read())]
                kernels.append((m.group(2), int(m.group(3)), code(raws[0], int(m.group(4))),
                                len(raws)))
    return kernels


def auto_region(ins):
    """The K loop as the driver lays it out for our GEMMs: from after the accumulators' zeroing
    (the last unpredicated CS2R between the barrier before the first FFMA/HMMA and the first
    load after that barrier) to the branch
    pair (op 0x944, then BRA) after the last barrier; the barrier span where that shape is absent."""
    ops = [name(lo) for lo, _ in ins]
    fma = [i for i, n in enumerate(ops) if n in ("FFMA", "HMMA")]
    bars = [i for i, n in enumerate(ops) if n == "BAR"]
    if not fma or not bars:
        return 0, len(ins) - 1
    b0 = max([b for b in bars if b < fma[0]], default=-1)
    mem0 = next(i for i in range(b0 + 1, fma[0] + 1) if ops[i] in ("LDG", "LDS", "FFMA", "HMMA"))
    zero = [i for i in range(b0 + 1, mem0) if ops[i] == "CS2R" and (ins[i][0] >> 12) & 15 == 7]
    a = zero[-1] + 1 if zero else b0 + 1
    b = bars[-1]
    back = [i for i in range(b, len(ops) - 1) if ops[i] == "BRA?" and ops[i + 1] == "BRA"]
    return a, (back[0] + 1 if back else b)


def region(ins, a, b):
    r = ins[a:b + 1]
    cls = collections.Counter(klass(lo) for lo, _ in r)
    ops = collections.Counter(mem(lo, hi) for lo, hi in r)
    stall = collections.Counter()
    for lo, hi in r:
        stall[klass(lo)] += (hi >> 41) & 15
    n = len(r)
    lds = sum(v for k, v in ops.items() if k.startswith("LDS"))
    out = [f"  region {a}..{b}: {n} instructions; " +
           ", ".join(f"{k} {v} ({100 * v / n:.1f}%)" for k, v in cls.most_common())]
    out.append(f"  FFMA per LDS {ops['FFMA'] / lds:.1f}" if lds else "  no LDS")
    out.append("  memory: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())
                                        if k.split(".")[0] in ("LDS", "STS", "LDG", "STG")))
    out.append(f"  predicated (guard not PT): {sum(((lo >> 12) & 15) != 7 for lo, _ in r)}; "
               f"static stall cycles {sum(stall.values())}: " +
               ", ".join(f"{k} {v}" for k, v in stall.most_common()))
    out.append("  int/address + compare + move + control ops: " +
               ", ".join(f"{k} {v}" for k, v in ops.most_common()
                         if klass_of_name(k) in ("int/address", "compare/predicate", "move",
                                                 "control")))
    return out


def klass_of_name(n):
    return CLASS.get(n.split(".")[0] if n.split(".")[0] in ("LDS", "STS", "LDG", "STG") else n, "")


def listing(ins, a, b):
    for i in range(a, b + 1):
        lo, hi = ins[i]
        g = (lo >> 12) & 15
        print("%5d %-3s %-8s R%d, R%d, R%d, R%d  imm %#x  stall %d wsb %d rsb %d wait %#04x reuse %x"
              % (i, "" if g == 7 else ("@!P%d" if g & 8 else "@P%d") % (g & 7), mem(lo, hi),
                 (lo >> 16) & 255, (lo >> 24) & 255, (lo >> 32) & 255, hi & 255, lo >> 40,
                 (hi >> 41) & 15, (hi >> 46) & 7, (hi >> 49) & 7, (hi >> 52) & 63,
                 (hi >> 58) & 15))


def main():
    args = sys.argv[1:]
    stats, root = args[0], args[1]
    ranges, show = {}, None
    for i, a in enumerate(args):
        if a in ("--range", "--list"):
            k, x, y = args[i + 1].rsplit(":", 2)
            if a == "--range":
                ranges[k] = (int(x), int(y))
            else:
                show = (k, int(x), int(y))
    for kname, regs, ins, nframes in load(root, stats):
        if show:
            if kname == show[0]:
                listing(ins, show[1], show[2])
            continue
        total = collections.Counter(klass(lo) for lo, _ in ins)
        spills = sum(name(lo) in ("LDL", "STL") for lo, _ in ins)
        print(f"{kname}: {regs} registers, {len(ins)} instructions ({nframes} cached pipeline(s)), "
              f"LDL/STL {spills}; whole kernel: " +
              ", ".join(f"{k} {v}" for k, v in total.most_common()))
        a, b = ranges.get(kname, auto_region(ins))
        print("\n".join(region(ins, a, b)))


if __name__ == "__main__":
    main()
