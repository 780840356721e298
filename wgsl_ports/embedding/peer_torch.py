"""PyTorch peers of the embedding family for bench/peers/torch_peers.py, and its target in
bench/peers/ratios.py (issue 6).

  embed_lookup s,d,V    F.embedding(tokens, table)
  embed_lookup_w16      F.embedding(tokens, table16).float()
  embed_backward        grad_table.index_add_(0, tokens, grad_out) (accumulating, like ours)
                        and aten.embedding_dense_backward (what autograd runs: a fresh table)
"""


def peer(ctx, row):
    torch, dev = ctx.torch, ctx.dev
    F = torch.nn.functional
    k = row["kernel"].split("/")[-1]
    if "[" in k or not k.startswith("embed_") or k in ("embed_backward_deterministic", "embed_backward_atomic_float"):
        return None
    d = row["dims"]
    s, dm, V = d["seq"], d["d_model"], d["vocab"]
    tok = torch.randint(0, V, (s,), device=dev)
    if k in ("embed_lookup", "embed_lookup_rows"):
        tab = torch.randn(V, dm, device=dev)
        res = {"what": "F.embedding", **ctx.time(lambda: F.embedding(tok, tab))}
    elif k in ("embed_lookup_w16", "embed_lookup_w16_rows"):
        tab = torch.randn(V, dm, device=dev, dtype=torch.float16)
        res = {"what": "F.embedding(f16).float()",
               **ctx.time(lambda: F.embedding(tok, tab).float())}
    else:
        gt = torch.zeros(V, dm, device=dev)
        go = torch.randn(s, dm, device=dev)
        t1 = ctx.time(lambda: gt.index_add_(0, tok, go))
        t2 = ctx.time(lambda: torch.ops.aten.embedding_dense_backward(go, tok, V, -1, False))
        res = {"what": "grad_table.index_add_(0, tokens, grad_out)", **t1,
               "dense_backward_ms": t2["median_ms"]}
        del gt, go
    del tok
    return res


def ratio_targets(v):
    rs = [r for r in v.rows if r["kernel"] == "embedding/embed_lookup" and r["dims"]["d_model"] == 768]
    if not rs:
        return []
    worst = min(r["roofline_share"] for r in rs)
    return [f"- embed_lookup >= 80% of copy roofline at d_model 768: worst {100 * worst:.1f}% -> {'met' if worst >= 0.8 else 'MISSED'}"]
