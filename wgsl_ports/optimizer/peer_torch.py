"""PyTorch peers of the optimizer family for bench/peers/torch_peers.py, and its part of
bench/peers/ratios.py (the gradient-norm launch table, the step table, issue 6's targets).

  reduce_norm_sq n, norm_two_level n   torch.linalg.vector_norm(g) (one read of g)
  adamw_update n        torch._fused_adamw_ on one flat tensor of n (fused AdamW, 28 B/elem: it
                        does not zero g), then g.zero_() timed separately; compared as the sum
  adamw_update_f16 n    the same + p16.copy_(p) (the f16 mirror)
  adamw_8bit_update     no PyTorch peer (bitsandbytes is not installed): skipped
  extra: the step on the 111-tensor synthetic LLM layout of bench.cpp (fp32 params, decay = matrices):
    fused AdamW step (torch.optim.AdamW(fused=True)), clip_grad_norm_(foreach), and clip + fused
    AdamW step + zero_grad(set_to_none=False) (what a trainer does per step), and the same + a
    foreach copy into f16 mirrors.
"""


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


def peer(ctx, row):
    torch, dev = ctx.torch, ctx.dev
    k = row["kernel"].split("/")[-1]
    if "[" in k:
        return None
    d = row["dims"]
    res = None
    if k in ("reduce_norm_sq", "norm_two_level"):  # the same sum of squares
        g = torch.randn(d["n"], device=dev)
        res = {"what": "torch.linalg.vector_norm(g)",
               **ctx.time(lambda: torch.linalg.vector_norm(g))}
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
        t_upd = ctx.time(upd)
        t_zero = ctx.time(lambda: g.zero_())
        # our kernel zeroes g too: compared with fused AdamW + g.zero_()
        res = {"what": "torch._fused_adamw_ (one tensor)" + (" + f16 copy_" if p16 is not None else ""),
               **t_upd, "zero_grad_ms": t_zero["median_ms"],
               "with_zero_ms": t_upd["median_ms"] + t_zero["median_ms"],
               "compare_ms": t_upd["median_ms"] + t_zero["median_ms"]}
        del p, g, m, v, p16
    return res


def extra(ctx):
    """The step on the 111-tensor layout (quick: vocab 1024, d 64, ff 128, as the bench)."""
    torch, dev = ctx.torch, ctx.dev
    if "step" not in ctx.ours:
        return None
    lay = layout(1024, 64, 128, 12) if ctx.quick else layout()
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

    def clip():
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)

    def step():
        opt.step()

    # grads stay allocated; zero_grad(set_to_none=False) zeroes them like our update does
    def full():
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
        opt.step()
        opt.zero_grad(set_to_none=False)

    def full_f16():
        full()
        torch._foreach_copy_(mirrors, pd)

    out = []
    for name, fn in (("fused_adamw_step", step), ("clip_grad_norm_foreach", clip),
                     ("clip+fused_adamw+zero_grad", full), ("clip+fused_adamw+zero_grad+f16_mirror", full_f16)):
        t = ctx.time(fn)
        out.append({"what": name, "tensors": len(params), "params": nparams, **t})
        print(f"torch step {name:<40} {t['median_ms']:.4f} ms ({len(params)} tensors, {nparams / 1e6:.1f}M params)", flush=True)
    del opt, params, mirrors, pd
    return {"step": out}


# ---- bench/peers/ratios.py ----------------------------------------------------------------------

def _torch_steps(v):
    # torch.json before the family peers (torch_bench.py) had the step at the top level
    return {s["what"]: s for s in v.peer.get("step") or (v.torch or {}).get("step", [])}


def ratio_tables(v):
    lines = []
    p = lines.append
    fmt = v.fmt
    p("PyTorch/ours for adamw_update* uses fused AdamW + g.zero_() (our kernel zeroes g too).")
    p("")
    # gradient norm: every launch choice per size (ms and % copy), to pick the defaults from
    norm_rows = [r for r in v.rows
                 if r["kernel"].startswith("optimizer/reduce_norm_sq") and "partials" not in r["kernel"]
                 or r["kernel"].startswith("optimizer/norm_two_level")]
    if norm_rows:
        cols = []
        for r in norm_rows:
            if r["kernel"] not in cols:
                cols.append(r["kernel"])
        sizes = sorted({r["dims"]["n"] for r in norm_rows})
        by = {(r["kernel"], r["dims"]["n"]): r for r in norm_rows}
        p("Gradient norm, every launch (ms, % copy; `reduce_norm_sq*`: seed CAS into one word; "
          "`norm_two_level*`: partials + finalize in one pass; no suffix on norm_two_level and "
          "`[size-derived]`: the optimizer API's defaults):")
        p("")
        p("| launch | " + " | ".join(f"n={n >> 20}M" if n >= 1 << 20 else f"n={n}" for n in sizes) + " |")
        p("|---|" + "---|" * len(sizes))
        for k in cols:
            cells = []
            for n in sizes:
                r = by.get((k, n))
                cells.append(f"{r['median_ms']:.4f} ({100 * r['roofline_share']:.0f}%, {r['dims'].get('workgroups', '?')} wg)" if r else "-")
            p(f"| {k.split('/', 1)[1]} | " + " | ".join(cells) + " |")
        p("")
    steps = v.ours.get("step", [])
    tstep = _torch_steps(v)
    dstep = {(s["variant"], s["mode"]): s for s in (v.dawn or {}).get("step", []) if "median_ms" in s}
    if steps:
        p("| recorded by | step | mode | dispatches | ours ms | byte limit ms | ours / limit | PyTorch step ms | ours / PyTorch | Dawn ms | Dawn/ours | Dawn / its limit |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for s in steps:
            peer = tstep.get("clip+fused_adamw+zero_grad+f16_mirror" if s["variant"] == "f16-mirror"
                             else "clip+fused_adamw+zero_grad")
            pms = peer["median_ms"] if peer else None
            d = dstep.get((s["variant"], s["mode"])) if s.get("source") == "bench" else None
            src = "MultiTensorAdamW API" if s.get("source") == "api" else "bench (same dispatches)"
            p(f"| {src} | {s['variant']} | {s['mode']} | {s['update_dispatches']} | {s['median_ms']:.4f} | "
              f"{s['byte_limit_ms']:.4f} | {s['vs_byte_limit']:.2f}x | {fmt(pms, '.4f')} | "
              f"{fmt(s['median_ms'] / pms if pms else None, '.2f')}x | {fmt(d['median_ms'] if d else None, '.4f')} | "
              f"{fmt(d['median_ms'] / s['median_ms'] if d else None, '.2f')}x | "
              f"{fmt(d.get('vs_byte_limit') if d else None, '.2f')}x |")
        for name, s in tstep.items():
            p(f"\nPyTorch {name}: {s['median_ms']:.4f} ms ({s['tensors']} tensors, {s['params'] / 1e6:.1f}M params)")
        p("")
        for s in steps:
            if s.get("profile"):
                src = "MultiTensorAdamW::record_step phase timestamps" if s.get("source") == "api" else "bench recording"
                p(f"Profile, {s['variant']} {s['mode']} ({src}; seed format):")
                p("```")
                for e in s["profile"]:
                    p(f"{e['kernel']:<24} (x{e['calls']:>4}) {e['ms']:9.4f} ms  -> {100 * e['share']:5.1f}% step")
                p("```")
    return lines


def ratio_targets(v):
    """Issue 6's targets."""
    lines = []
    p = lines.append

    def best(kernel, pred):
        return [r for r in v.rows if r["kernel"] == kernel and pred(r)]
    rs = best("optimizer/adamw_update", lambda r: r["dims"]["n"] >= (16 << 20))
    if rs:
        worst = min(r["roofline_share"] for r in rs)
        p(f"- adamw_update >= 90% of copy roofline from 16M up: worst {100 * worst:.1f}% -> {'met' if worst >= 0.9 else 'MISSED'}")
    rs = best("optimizer/reduce_norm_sq", lambda r: r["dims"]["n"] >= (16 << 20))
    if rs:
        worst = min(r["roofline_share"] for r in rs)
        p(f"- reduce_norm_sq >= 80% of the (copy) bandwidth from 16M up: worst {100 * worst:.1f}% -> {'met' if worst >= 0.8 else 'MISSED'}")
    for k, what in (("optimizer/reduce_norm_sq[size-derived]", "seed CAS norm, size-derived launch"),
                    ("optimizer/norm_two_level", "two-level norm (partials + finalize), size-derived partials")):
        rs = best(k, lambda r: r["dims"]["n"] >= (16 << 20))
        if rs:
            worst = min(r["roofline_share"] for r in rs)
            p(f"- {what} >= 80% of the copy bandwidth from 16M up: worst {100 * worst:.1f}% -> {'met' if worst >= 0.8 else 'MISSED'}")
    full = _torch_steps(v).get("clip+fused_adamw+zero_grad")
    for s in v.ours.get("step", []):
        if s["mode"].startswith("multi-tensor") and s["variant"] == "fp32" and s.get("source") == "api":
            norm = "deterministic (two-level) norm" if "deterministic" in s["mode"] else "seed CAS norm (default)"
            if full:
                r = s["median_ms"] / full["median_ms"]
                p(f"- fp32 step, {norm}, <= 0.55x PyTorch clip+fused AdamW+zero_grad: {r:.2f}x -> {'met' if r <= 0.55 else 'MISSED'}")
            p(f"- fp32 step, {norm}, within 10% of the byte-count limit: {s['vs_byte_limit']:.2f}x -> {'met' if s['vs_byte_limit'] <= 1.10 else 'MISSED'}")
    return lines
