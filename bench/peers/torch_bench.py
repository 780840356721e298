"""PyTorch peers of `wgslvk bench`, at the sizes of our bench JSON, timed with CUDA events
(median of the repeats after a warm-up).

    python3 torch_bench.py --bench OURS.json --out TORCH.json [--reps N] [--warmup N]

Kernels (what a PyTorch user would run for the same work):
  reduce_norm_sq n          torch.linalg.vector_norm(g) (one read of g)
  adamw_update n            torch._fused_adamw_ on one flat tensor of n (fused AdamW, 28 B/elem:
                            it does not zero g), then g.zero_() timed separately
  adamw_update_f16 n        the same + p16.copy_(p) (the f16 mirror)
  adamw_8bit_update         no PyTorch peer (bitsandbytes is not installed): skipped
  embed_lookup s,d,V        F.embedding(tokens, table)
  embed_lookup_w16          F.embedding(tokens, table16).float()
  embed_backward            grad_table.index_add_(0, tokens, grad_out) (accumulating, like ours)
                            and aten.embedding_dense_backward (what autograd runs: a fresh table)
Step on the 111-tensor layout of shared/anchors.md (fp32 params, decay = matrices):
  fused AdamW step (torch.optim.AdamW(fused=True)), clip_grad_norm_(foreach), and
  clip + fused AdamW step + zero_grad(set_to_none=False) (what a trainer does per step),
  and the same + a foreach copy into f16 mirrors.
"""
import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F


WARM_MS = 200.0


def cuda_time(fn, reps, warmup, setup=None):
    # warm-up: at least `warmup` calls and WARM_MS of busy GPU (clocks drop while idle)
    import time
    t0 = time.perf_counter()
    done = 0
    while True:
        if setup:
            setup()
        fn()
        done += 1
        if done % 8 == 0 or done >= warmup:
            torch.cuda.synchronize()
            if (done >= warmup and (time.perf_counter() - t0) * 1e3 >= WARM_MS) or done >= 20000:
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


def layout(vocab=16384, d=768, ff=2048, layers=12):
    t = [("tok_embedding", (vocab, d), True)]
    for l in range(layers):
        t.append((f"layer{l}.attn_norm", (d,), False))
        for n in ("wq", "wk", "wv", "wo"):
            t.append((f"layer{l}.{n}", (d, d), True))
        t.append((f"layer{l}.ffn_norm", (d,), False))
        t.append((f"layer{l}.w_gate", (ff, d), True))
        t.append((f"layer{l}.w_up", (ff, d), True))
        t.append((f"layer{l}.w_down", (d, ff), True))
    t.append(("final_norm", (d,), False))
    t.append(("lm_head", (vocab, d), True))
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--warm-ms", type=float, default=200.0)
    a = ap.parse_args()
    global WARM_MS
    WARM_MS = a.warm_ms
    ours = json.load(open(a.bench))
    reps = a.reps or ours.get("options", {}).get("reps", 25)
    dev = torch.device("cuda")
    torch.manual_seed(0)
    out = {"tool": "pytorch", "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "reps": reps, "warmup": a.warmup,
           "kernels": [], "step": []}
    print(f"torch {torch.__version__} cuda {torch.version.cuda} on {out['device']}", flush=True)

    # copy roofline as PyTorch sees it: dst.copy_(src) over the same bytes (half read, half
    # written), measured right after each kernel; 2 GiB buffers, sliced
    csrc = torch.randn(512 << 20, device=dev)
    cdst = torch.empty_like(csrc)

    def copy_time(nbytes):
        n = max(4, min(csrc.numel(), nbytes // 8))
        s_, d_ = csrc[:n], cdst[:n]
        t = cuda_time(lambda: d_.copy_(s_), reps, a.warmup)
        return {"copy_bytes": 8 * n, "copy_median_ms": t["median_ms"],
                "copy_gbps": 8 * n / (t["median_ms"] * 1e-3) / 1e9}

    t = cuda_time(lambda: cdst.copy_(csrc), reps, a.warmup)
    out["copy"] = {"bytes": 8 * csrc.numel(), **t, "gbps": 8 * csrc.numel() / (t["median_ms"] * 1e-3) / 1e9}
    print(f"torch copy 4 GiB (r+w): {t['median_ms']:.4f} ms {out['copy']['gbps']:.0f} GB/s", flush=True)

    seen = set()
    for row in ours.get("kernels", []):
        k = row["kernel"].split("/")[1]
        if "[" in k:
            continue
        key = (k, json.dumps(row["dims"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        d = row["dims"]
        res = None
        try:
            if k in ("reduce_norm_sq", "norm_two_level"):  # the same sum of squares
                g = torch.randn(d["n"], device=dev)
                res = {"what": "torch.linalg.vector_norm(g)",
                       **cuda_time(lambda: torch.linalg.vector_norm(g), reps, a.warmup)}
                del g
            elif k in ("adamw_update", "adamw_update_f16"):
                n = d["n"]
                p, g = torch.randn(n, device=dev), torch.randn(n, device=dev) * 0.1
                m, v = torch.randn(n, device=dev) * 0.01, torch.rand(n, device=dev) * 1e-3
                steps = torch.tensor([10.0], device=dev)
                p16 = torch.empty(n, device=dev, dtype=torch.float16) if k.endswith("f16") else None

                def upd():
                    torch._fused_adamw_([p], [g], [m], [v], [], [steps], lr=1e-3, beta1=0.9,
                                        beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=False,
                                        maximize=False)
                    if p16 is not None:
                        p16.copy_(p)
                t_upd = cuda_time(upd, reps, a.warmup)
                t_zero = cuda_time(lambda: g.zero_(), reps, a.warmup)
                res = {"what": "torch._fused_adamw_ (one tensor)" + (" + f16 copy_" if p16 is not None else ""),
                       **t_upd, "zero_grad_ms": t_zero["median_ms"],
                       "with_zero_ms": t_upd["median_ms"] + t_zero["median_ms"]}
                del p, g, m, v, p16
            elif k.startswith("embed_") and k != "embed_backward_deterministic" and k != "embed_backward_atomic_float":
                s, dm, V = d["seq"], d["d_model"], d["vocab"]
                tok = torch.randint(0, V, (s,), device=dev)
                if k in ("embed_lookup", "embed_lookup_rows"):
                    tab = torch.randn(V, dm, device=dev)
                    res = {"what": "F.embedding", **cuda_time(lambda: F.embedding(tok, tab), reps, a.warmup)}
                elif k in ("embed_lookup_w16", "embed_lookup_w16_rows"):
                    tab = torch.randn(V, dm, device=dev, dtype=torch.float16)
                    res = {"what": "F.embedding(f16).float()",
                           **cuda_time(lambda: F.embedding(tok, tab).float(), reps, a.warmup)}
                else:
                    gt = torch.zeros(V, dm, device=dev)
                    go = torch.randn(s, dm, device=dev)
                    t1 = cuda_time(lambda: gt.index_add_(0, tok, go), reps, a.warmup)
                    t2 = cuda_time(lambda: torch.ops.aten.embedding_dense_backward(go, tok, V, -1, False),
                                   reps, a.warmup)
                    res = {"what": "grad_table.index_add_(0, tokens, grad_out)", **t1,
                           "dense_backward_ms": t2["median_ms"]}
                    del gt, go
                del tok
        except RuntimeError as e:
            res = {"error": str(e)}
        if res is None:
            continue
        res.update({"kernel": row["kernel"], "label": row["label"], "dims": d})
        if "median_ms" in res:
            res.update(copy_time(row["bytes"]))
            res["roofline_share"] = (row["bytes"] / (res.get("with_zero_ms", res["median_ms"]) * 1e-3) / 1e9) / res["copy_gbps"]
        out["kernels"].append(res)
        msg = res.get("error") or f"{res['median_ms']:.4f} ms ({res['what']})"
        print(f"torch {row['kernel']:<34} {row['label']:<22} {msg}", flush=True)
        torch.cuda.empty_cache()

    # ---- the step on the 111-tensor layout ----
    quick = ours.get("options", {}).get("quick", False)
    lay = layout(1024, 64, 128, 12) if quick else layout()
    params = [torch.nn.Parameter(torch.randn(*shape, device=dev) * 0.02) for _, shape, _ in lay]
    for p in params:
        p.grad = torch.randn_like(p) * 0.1
    decay = [p for p, (_, _, dc) in zip(params, lay) if dc]
    nodecay = [p for p, (_, _, dc) in zip(params, lay) if not dc]
    nparams = sum(p.numel() for p in params)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": nodecay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.999), eps=1e-8, fused=True)
    mirrors = [torch.empty_like(p, dtype=torch.float16) for p in params]
    pd = [p.data for p in params]

    def regrad():
        pass  # grads stay allocated; zero_grad(set_to_none=False) zeroes them like our update does

    def clip():
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)

    def step():
        opt.step()

    def full():
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
        opt.step()
        opt.zero_grad(set_to_none=False)

    def full_f16():
        full()
        torch._foreach_copy_(mirrors, pd)

    del csrc, cdst
    torch.cuda.empty_cache()
    for name, fn in (("fused_adamw_step", step), ("clip_grad_norm_foreach", clip),
                     ("clip+fused_adamw+zero_grad", full), ("clip+fused_adamw+zero_grad+f16_mirror", full_f16)):
        t = cuda_time(fn, reps, a.warmup)
        out["step"].append({"what": name, "tensors": len(params), "params": nparams, **t})
        print(f"torch step {name:<40} {t['median_ms']:.4f} ms ({len(params)} tensors, {nparams / 1e6:.1f}M params)", flush=True)

    json.dump(out, open(a.out, "w"), indent=1)
    print("wrote", a.out)


if __name__ == "__main__":
    sys.exit(main())
