"""PyTorch peers of the elementwise family for bench/peers/torch_peers.py, fp32, at the sizes of
our rows: gelu_forward F.gelu(approximate="tanh") over rows x 4d; residual_add x + y over rows x d.
(gelu_backward, the in-place add and pos_embed_add have no peer.)"""


def peer(ctx, row):
    F = ctx.torch.nn.functional
    k, dims = row["kernel"], row["dims"]
    if k == "gelu_forward":
        x4 = ctx.rnd(dims["rows"], dims["n"] // dims["rows"])
        return {"what": "F.gelu(tanh) fwd", **ctx.time(lambda: F.gelu(x4, approximate="tanh"))}
    if k == "residual_add":
        x, y2 = ctx.rnd(dims["rows"], dims["d"]), ctx.rnd(dims["rows"], dims["d"])
        return {"what": "residual add", **ctx.time(lambda: x + y2)}
    return None
