"""PyTorch peer of the norm family for bench/peers/torch_peers.py: F.layer_norm forward, and its
backward (torch.autograd.grad of x, weight, bias) for every layernorm_backward* row, fp32, at the
rows x d of our rows."""


def peer(ctx, row):
    torch = ctx.torch
    F = torch.nn.functional
    k, dims = row["kernel"], row["dims"]
    if "[" in k or not k.startswith("layernorm_"):
        return None
    rows_n, d = dims["rows"], dims["d"]
    x, w, b = ctx.rnd(rows_n, d), ctx.rnd(d), ctx.rnd(d)
    if k == "layernorm_forward":
        return {"what": "F.layer_norm fwd", **ctx.time(lambda: F.layer_norm(x, (d,), w, b))}

    def bwd():
        xg = x.clone().requires_grad_(True); wg = w.clone().requires_grad_(True); bg = b.clone().requires_grad_(True)
        y = F.layer_norm(xg, (d,), wg, bg); dy = ctx.rnd(rows_n, d)
        return {"what": "F.layer_norm bwd",
                **ctx.time(lambda: torch.autograd.grad(y, (xg, wg, bg), dy, retain_graph=True))}
    return ctx.once(("layernorm_backward", rows_n, d), bwd)
