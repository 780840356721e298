"""PyTorch peer of the attention family for bench/peers/torch_peers.py: causal
F.scaled_dot_product_attention forward, fp32, q, k, v of B x H x T x hd, with the default backend
(median_ms) and the math backend (math_ms), once per shape for all our forward kernels. (The
backward kernels have no peer.)"""


def peer(ctx, row):
    torch = ctx.torch
    F = torch.nn.functional
    k, dims = row["kernel"], row["dims"]
    if "[" in k or not (k.startswith("attn_fwd") or k == "attn_naive_forward"):
        return None
    B, H, T, hd = dims["B"], dims["H"], dims["T"], dims["hd"]

    def sdpa():
        from torch.nn.attention import sdpa_kernel, SDPBackend
        q, k, v = ctx.rnd(B, H, T, hd), ctx.rnd(B, H, T, hd), ctx.rnd(B, H, T, hd)
        res = {"what": "SDPA causal fwd (default backend)"}
        for name, backends in (("math", [SDPBackend.MATH]), ("default", None)):
            def run():
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if backends:
                with sdpa_kernel(backends):
                    t = ctx.time(run)
            else:
                t = ctx.time(run)
            if name == "math":
                res["math_ms"] = t["median_ms"]
            else:
                res.update(t)
        return res
    return ctx.once(("attention", B, H, T, hd), sdpa)
