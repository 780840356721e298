"""One table of ratios from the three result files of bench/gpu_peers.sh:
ours (wgslvk bench --json), Dawn (dawn_cases.mjs replaying the cases bench --dump wrote, matched
to our rows by their "case" id) and PyTorch (torch_peers.py, the families' peers).

    python3 ratios.py OURS.json [DAWN.json] [TORCH.json] [--md OUT.md] [--png OUT.png]

Columns: ours ms (median), ours GB/s and its share of the copy roofline measured in the same run,
then speedups: PyTorch ms / ours ms and Dawn ms / ours ms (above 1: ours is faster). Then each
family's own tables and targets: wgsl_ports/<family>/peer_torch.py's ratio_tables(v) and
ratio_targets(v) (v: a View, below), and the generic target against Dawn.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_peers import families  # noqa: E402 (imports no torch)


def load(p):
    try:
        return json.load(open(p)) if p else None
    except (OSError, ValueError) as e:
        print(f"ratios: cannot read {p}: {e}", file=sys.stderr)
        return None


def key(r):
    return (r.get("group") or "", r["kernel"], r["label"])


def name(r):
    """group/kernel, as wgslvk bench prints it (kernels named with their family stay as they are)."""
    return r["kernel"] if "/" in r["kernel"] or not r.get("group") else r["group"] + "/" + r["kernel"]


def family_of(r):
    """A row's family: its group (files before groups: the kernel's "family/" prefix)."""
    return r.get("group") or r["kernel"].split("/")[0]


def b2b(r):
    """Our back-to-back median (bench rows timed through time_case), or None."""
    v = r.get("back_to_back_median_ms")
    return v if v else None


def fmt(x, spec=".3f", none="-"):
    return none if x is None else format(x, spec)


class View:
    """What a family's ratio hooks see: the three files, its own rows of ours (`rows`), its
    PyTorch extras (`peer`: torch.json's families/<family>), `peer_row(r)` (the PyTorch row
    matched to our row r, or None) and `fmt`."""

    def __init__(self, name, ours, dawn, torch, tk):
        self.name, self.ours, self.dawn, self.torch = name, ours, dawn, torch
        self.rows = [r for r in ours.get("kernels", []) if family_of(r) == name]
        self.peer = (torch or {}).get("families", {}).get(name, {})
        self.fmt = fmt
        self._tk = tk

    def peer_row(self, r):
        return self._tk.get(key(r))


def main(argv):
    files = [a for a in argv if not a.startswith("--")]
    md = argv[argv.index("--md") + 1] if "--md" in argv else None
    png = argv[argv.index("--png") + 1] if "--png" in argv else None
    if md in files:
        files.remove(md)
    if png in files:
        files.remove(png)
    ours = load(files[0])
    dawn = load(files[1]) if len(files) > 1 else None
    torch = load(files[2]) if len(files) > 2 else None
    # dawn_cases.json: one row per replayed case (id, median_ms); ours name the case they timed
    dawn_by_case = {d["id"]: d for d in (dawn or {}).get("rows", []) if "median_ms" in d}
    dk = {}
    for r in ours.get("kernels", []):
        d = dawn_by_case.get(r.get("case"))
        if d:
            share = None
            if r.get("copy_gbps"):
                share = r["bytes"] / (d["median_ms"] * 1e-3) / 1e9 / r["copy_gbps"]
            dk[key(r)] = {"median_ms": d["median_ms"], "roofline_share": share}
    tk = {key(r): r for r in (torch or {}).get("kernels", []) if "median_ms" in r}
    lines = []
    p = lines.append
    dev = ours["device"]
    p(f"# wgslvk bench vs peers: {dev['name']} (driver {dev['driver']}), {ours['date']}")
    p("")
    p("| kernel | size | ours ms | ours GB/s | ours % copy | PyTorch ms | PyTorch/ours | PyTorch % copy | Dawn ms | Dawn/ours | Dawn % copy | ours b2b ms | Dawn/ours b2b |")
    p("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ours.get("kernels", []):
        t = tk.get(key(r))
        d = dk.get(key(r))
        tms = None
        if t:
            tms = t.get("compare_ms", t.get("with_zero_ms", t["median_ms"]))
        tr = 100 * t["roofline_share"] if t and "roofline_share" in t else None
        dr = 100 * d["roofline_share"] if d and d.get("roofline_share") is not None else None
        p(f"| {name(r)} | {r['label']} | {r['median_ms']:.4f} | {r['gbps']:.0f} | "
          f"{100 * r['roofline_share']:.1f}% | {fmt(tms, '.4f')} | {fmt(tms / r['median_ms'] if tms else None, '.2f')}x | "
          f"{fmt(tr, '.1f')}% | {fmt(d['median_ms'] if d else None, '.4f')} | "
          f"{fmt(d['median_ms'] / r['median_ms'] if d else None, '.2f')}x | {fmt(dr, '.1f')}% | "
          f"{fmt(b2b(r), '.4f')} | {fmt(d['median_ms'] / b2b(r) if d and b2b(r) else None, '.2f')}x |")
    p("")
    p("Each `% copy` is that engine's GB/s over a copy of the same bytes measured beside it "
      "(ours: copy_vec4 passes alternating with the kernel; PyTorch: copy_ right after; Dawn, which "
      "replays our dumped case without a copy of its own: our copy of the same run).")
    p("`ours b2b`: our repeats back to back with no copy between them, as Dawn's replay times its "
      "repeats (a working set that fits in L2 can stay there): Dawn/ours b2b is the like-for-like ratio.")
    p("")
    mods = families()  # every family's hooks run (a table may come from more than rows, as a step)
    names = sorted(mods)
    views = {n: View(n, ours, dawn, torch, tk) for n in names}
    for n in names:
        if hasattr(mods.get(n), "ratio_tables"):
            for line in mods[n].ratio_tables(views[n]):
                p(line)
    p("")
    p("## Targets")
    for n in names:
        if hasattr(mods.get(n), "ratio_targets"):
            for line in mods[n].ratio_targets(views[n]):
                p(line)
    slower = []
    for r in ours.get("kernels", []):
        d = dk.get(key(r))
        mine = b2b(r) or r["median_ms"]  # like for like: both back to back where we have it
        if d and d["median_ms"] < mine * 0.97:
            slower.append(f"{r['kernel']} {r['label']} ({mine:.4f} vs Dawn {d['median_ms']:.4f} ms)")
    if dawn:
        p("- every kernel at least as fast as Dawn (3% noise band): " + ("met" if not slower else "MISSED for " + "; ".join(slower)))
    text = "\n".join(lines)
    print(text)
    if md:
        open(md, "w").write(text + "\n")
    if png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            ks = []
            for r in ours["kernels"]:
                if r["kernel"] not in ks:
                    ks.append(r["kernel"])
            cols = 3
            rows = (len(ks) + cols - 1) // cols
            fig, axs = plt.subplots(rows, cols, figsize=(6 * cols, 4 * rows), squeeze=False)
            for i, k in enumerate(ks):
                ax = axs[i // cols][i % cols]
                rr = sorted((r for r in ours["kernels"] if r["kernel"] == k), key=lambda r: r["bytes"])
                x = [r["bytes"] for r in rr]
                ax.plot(x, [r["gbps"] for r in rr], "o-", label="wgslvk")
                ax.plot(x, [r["copy_gbps"] for r in rr], "k--", label="copy roofline (wgslvk copy_vec4)")
                dd = [(r["bytes"], r["bytes"] / (dk[key(r)]["median_ms"] * 1e-3) / 1e9) for r in rr if key(r) in dk]
                if dd:
                    ax.plot(*zip(*dd), "s-", label="Dawn (same WGSL)")
                tt = [(r["bytes"], r["bytes"] / (tk[key(r)].get("compare_ms", tk[key(r)].get("with_zero_ms", tk[key(r)]["median_ms"])) * 1e-3) / 1e9) for r in rr if key(r) in tk]
                if tt:
                    ax.plot(*zip(*tt), "^-", label="PyTorch (same bytes)")
                ax.set_xscale("log")
                ax.set_title(k)
                ax.set_xlabel("bytes moved (minimum)")
                ax.set_ylabel("GB/s")
                ax.set_ylim(bottom=0)
                ax.grid(alpha=0.3)
                ax.legend(fontsize=7)
            for j in range(len(ks), rows * cols):
                axs[j // cols][j % cols].axis("off")
            fig.suptitle(f"{dev['name']}: effective bandwidth vs size")
            fig.tight_layout()
            fig.savefig(png, dpi=80)
            print("wrote", png)
        except Exception as e:  # matplotlib missing or broken: the C++ PNG is still there
            print(f"ratios: no matplotlib plot ({e})", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
