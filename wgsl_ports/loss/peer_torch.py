"""PyTorch peer of the loss family for bench/peers/torch_peers.py: F.cross_entropy forward and
its backward (torch.autograd.grad of the logits), fp32, uniform(-4, 4) logits, at the
rows x vocab of our rows."""


def peer(ctx, row):
    torch = ctx.torch
    F = torch.nn.functional
    k, dims = row["kernel"], row["dims"]
    if k not in ("cross_entropy_forward", "cross_entropy_backward"):
        return None
    rows_n, V = dims["rows"], dims["vocab"]
    logits = ctx.rnd(rows_n, V) * 4
    tgt = torch.randint(0, V, (rows_n,), device=ctx.dev, generator=ctx.gen)
    if k == "cross_entropy_forward":
        return {"what": "F.cross_entropy fwd", **ctx.time(lambda: F.cross_entropy(logits, tgt))}
    lg = logits.clone().requires_grad_(True)
    loss = F.cross_entropy(lg, tgt)
    return {"what": "F.cross_entropy bwd",
            **ctx.time(lambda: torch.autograd.grad(loss, lg, retain_graph=True))}
