#!/usr/bin/env python3
"""What NVIDIA's Vulkan compiler made of the subgroup-matrix kernels (measurement only; README of
wgsl_ports/subgroup_matrix, "Why the K step is slow").

bench/gpu_sgmm.sh with SGMM_SASS=1 points the driver's shader disk cache at a folder and brings it
back (sass.tar.xz, folder glcache/). Driver 580.159: each cached pipeline is a zstd frame whose
content ("NVDANVVMNVuc...") holds the Hopper machine code raw, no ELF around it; it starts at the
first 16-byte slot holding a ULDC (0x7ab9 in its low half-word) and is "CS Binary Size" bytes long
(the driver's executable statistic, in the log in the same order as the frames). No disassembler
runs here, so this decodes what the question needs from the encoding (Volta-and-later layout:
opcode in bits 0-11, predicate 12-15, Rd 16-23; control bits 105-125: stall, write scoreboard,
read scoreboard, wait mask) with a small opcode table (HMMA 0x23c, LDSM 0x83b, LDG 0x981,
STS 0x388, LDS 0x984, BAR 0xb1d): per kernel, the instruction counts, the scoreboards the global
loads write, and how many instructions wait on those scoreboards.
Usage: sgmm_sass.py GLCACHE_DIR LOG   (LOG: the test's log with the "CS Binary Size" lines)"""
import collections
import os
import re
import struct
import subprocess
import sys

OPS = {0x23c: "HMMA", 0x83b: "LDSM", 0x981: "LDG", 0x388: "STS", 0x984: "LDS", 0xb1d: "BAR"}


def frames(blob):
    offs = [m.start() for m in re.finditer(re.escape(b"\x28\xb5\x2f\xfd"), blob)]
    for i, o in enumerate(offs):
        end = offs[i + 1] if i + 1 < len(offs) else len(blob)
        r = subprocess.run(["zstd", "-d", "-c", "-q"], input=blob[o:end], capture_output=True)
        if r.stdout.startswith(b"NVDANVVMNVuc"):
            yield r.stdout


def code(raw, size):
    for off in range(8, 8192, 16):
        lo, = struct.unpack_from("<Q", raw, off)
        if lo & 0xFFFF == 0x7AB9:
            return [struct.unpack_from("<QQ", raw, o) for o in range(off, off + size, 16)]
    return []


def main():
    cache, log = sys.argv[1], sys.argv[2]
    sizes = re.findall(r"^(subgroup_matrix/\S+): CS Binary Size = (\d+)", open(log).read(), re.M)
    raws = []
    for d, _, fs in sorted(os.walk(cache)):
        for f in sorted(fs):
            if f.endswith(".bin"):
                raws += list(frames(open(os.path.join(d, f), "rb").read()))
    print(f"{len(raws)} cached pipelines, {len(sizes)} kernels in the log")
    print("kernel | HMMA | LDSM | LDG | STS | LDS | BAR | scoreboards the LDGs write | instructions waiting on them")
    for (name, size), raw in zip(sizes, raws):
        ins = code(raw, int(size))
        n = collections.Counter()
        ldg_sb, waits = set(), 0
        for lo, hi in ins:
            n[OPS.get(lo & 0xFFF, "")] += 1
            if lo & 0xFFF == 0x981:
                ldg_sb.add((hi >> 46) & 7)
        mask = sum(1 << s for s in ldg_sb if s < 6)
        for lo, hi in ins:
            waits += bool(((hi >> 52) & 0x3F) & mask)
        print(f"{name} | " + " | ".join(str(n[k]) for k in ("HMMA", "LDSM", "LDG", "STS", "LDS", "BAR")) +
              f" | {sorted(ldg_sb)} | {waits}")


if __name__ == "__main__":
    main()
