"""PyTorch beside `wgslvk bench`: for every row of our bench JSON, what a PyTorch user would run
for the same work at the same sizes, timed with CUDA events (median of the repeats after a
warm-up), plus each family's own extras (a whole optimizer step, a training-curve check).

    python3 torch_peers.py --bench OURS.json --out TORCH.json [--only LIST] [--reps N]
                           [--warmup N] [--warm-ms MS]

The peers live with their families: every wgsl_ports/<family>/peer_torch.py may define
  peer(ctx, row)  -> dict (at least median_ms and "what") or None, for one of our rows of its
                     group; `compare_ms` (default median_ms) is what ratios.py sets against ours
  extra(ctx)      -> dict stored under "families"/<family> (the family's own measurements)
  ratio_tables(v), ratio_targets(v) -> markdown lines for ratios.py (see there)
Families are imported without torch; `ctx.torch` is handed to them here.
Output: {"tool", "torch", "cuda", "device", "reps", "warmup", "copy", "kernels": [one per row
of ours with a peer: kernel, label, group, dims, the peer's fields, copy_* and roofline_share],
"families": {family: extra}}.
"""
import argparse
import glob
import importlib.util
import json
import os
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def families(root=ROOT, only=None):
    """{family: module} of every wgsl_ports/*/peer_torch.py (sorted; `only`: those groups)."""
    mods = {}
    for path in sorted(glob.glob(os.path.join(root, "wgsl_ports", "*", "peer_torch.py"))):
        name = os.path.basename(os.path.dirname(path))
        if only and name not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"peer_torch_{name}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods[name] = mod
    return mods


class Ctx:
    """What a family's peer gets: torch, the device, the timing and the bench's options."""

    def __init__(self, torch, ours, reps, warmup, warm_ms):
        self.torch = torch
        self.dev = torch.device("cuda")
        self.ours = ours
        self.reps = reps
        self.warmup = warmup
        self.warm_ms = warm_ms
        self.quick = ours.get("options", {}).get("quick", False)
        self._memo = {}
        self.gen = None
        self._csrc = self._cdst = None

    def time(self, fn, setup=None, reps=None, warmup=None):
        """CUDA-event times of fn(): warm-up of at least `warmup` calls and warm_ms of busy GPU
        (clocks drop while idle), then `reps` calls; median, min, p10, p90."""
        torch = self.torch
        reps = reps or self.reps
        warmup = self.warmup if warmup is None else warmup
        t0 = time.perf_counter()
        done = 0
        while True:
            if setup:
                setup()
            fn()
            done += 1
            if done % 8 == 0 or done >= warmup:
                torch.cuda.synchronize()
                if (done >= warmup and (time.perf_counter() - t0) * 1e3 >= self.warm_ms) or done >= 20000:
                    break
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            if setup:
                setup()
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        times.sort()
        n = len(times)
        med = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
        return {"median_ms": med, "min_ms": times[0], "p10_ms": times[round(0.1 * (n - 1))],
                "p90_ms": times[round(0.9 * (n - 1))], "reps": n}

    def rnd(self, *shape):
        """uniform(-1, 1) floats from one generator seeded 1 (the transformer families' inputs)."""
        torch = self.torch
        if self.gen is None:
            self.gen = torch.Generator(device=self.dev).manual_seed(1)
        return torch.rand(*shape, device=self.dev, generator=self.gen) * 2 - 1

    def once(self, key, fn):
        """fn() the first time `key` is asked for (one PyTorch timing for every kernel variant of
        ours at the same dims)."""
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]

    def copy_buffers(self):
        # the copy roofline as PyTorch sees it: dst.copy_(src), 2 GiB buffers, sliced
        if self._csrc is None:
            self._csrc = self.torch.randn(512 << 20, device=self.dev)
            self._cdst = self.torch.empty_like(self._csrc)
        return self._csrc, self._cdst

    def free_copy_buffers(self):
        self._csrc = self._cdst = None
        self.torch.cuda.empty_cache()

    def copy_time(self, nbytes):
        """dst.copy_(src) over the same bytes (half read, half written), measured right after
        each row's peer so both see the same clocks."""
        csrc, cdst = self.copy_buffers()
        n = max(4, min(csrc.numel(), nbytes // 8))
        s_, d_ = csrc[:n], cdst[:n]
        t = self.time(lambda: d_.copy_(s_))
        return {"copy_bytes": 8 * n, "copy_median_ms": t["median_ms"],
                "copy_gbps": 8 * n / (t["median_ms"] * 1e-3) / 1e9}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="our rows: wgslvk bench --json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="",
                    help="wgslvk bench's --only: the families named, and those of our rows (default: all)")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--warm-ms", type=float, default=200.0)
    a = ap.parse_args()
    ours = json.load(open(a.bench))
    only = {s for s in a.only.split(",") if s}
    if only:  # a kernel name in --only selects its family's rows
        only |= {r.get("group") or r["kernel"].split("/")[0] for r in ours.get("kernels", [])}
    mods = families(only=only)
    import torch

    reps = a.reps or ours.get("options", {}).get("reps", 25)
    torch.manual_seed(0)
    ctx = Ctx(torch, ours, reps, a.warmup, a.warm_ms)
    out = {"tool": "pytorch", "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "reps": reps, "warmup": a.warmup,
           "kernels": [], "families": {}}
    print(f"torch {torch.__version__} cuda {torch.version.cuda} on {out['device']}; "
          f"peers: {', '.join(mods) or 'none'}", flush=True)

    csrc, cdst = ctx.copy_buffers()
    t = ctx.time(lambda: cdst.copy_(csrc))
    out["copy"] = {"bytes": 8 * csrc.numel(), **t, "gbps": 8 * csrc.numel() / (t["median_ms"] * 1e-3) / 1e9}
    print(f"torch copy 4 GiB (r+w): {t['median_ms']:.4f} ms {out['copy']['gbps']:.0f} GB/s", flush=True)
    del csrc, cdst

    seen = set()
    for row in ours.get("kernels", []):
        row = dict(row, group=row.get("group") or row["kernel"].split("/")[0])  # files before groups
        mod = mods.get(row["group"])
        if mod is None or not hasattr(mod, "peer"):
            continue
        key = (row["group"], row["kernel"], json.dumps(row["dims"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        try:
            res = mod.peer(ctx, row)
        except RuntimeError as e:
            res = {"error": str(e)}
        if res is None:
            continue
        res = dict(res)
        res.update({"group": row["group"], "kernel": row["kernel"], "label": row["label"], "dims": row["dims"]})
        if "median_ms" in res:
            res.setdefault("compare_ms", res["median_ms"])
            if row.get("flops"):
                res["tflops"] = row["flops"] / (res["compare_ms"] * 1e-3) / 1e12
            res.update(ctx.copy_time(row["bytes"]))
            res["roofline_share"] = (row["bytes"] / (res["compare_ms"] * 1e-3) / 1e9) / res["copy_gbps"]
        out["kernels"].append(res)
        msg = res.get("error") or f"{res['median_ms']:.4f} ms ({res['what']})"
        name = row["kernel"] if "/" in row["kernel"] else row["group"] + "/" + row["kernel"]
        print(f"torch {name:<40} {row['label']:<26} {msg}", flush=True)
        torch.cuda.empty_cache()
    ctx.free_copy_buffers()

    ok = True
    for name, mod in mods.items():
        if hasattr(mod, "extra"):
            ex = mod.extra(ctx)
            if ex:
                out["families"][name] = ex
                ok = ok and ex.get("pass", True)
            torch.cuda.empty_cache()

    json.dump(out, open(a.out, "w"), indent=1)
    print("wrote", a.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
