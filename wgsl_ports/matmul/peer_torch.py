"""PyTorch peer of the matmul family for bench/peers/torch_peers.py: torch.matmul (A @ B, fp32,
then with TF32 allowed: `tf32_ms`) at every M x N x K of our rows, once per shape for all our
variants (the transposed products of the backward are timed as the plain product of that shape).
The bias-gradient column sum has no peer."""


def peer(ctx, row):
    torch = ctx.torch
    d = row["dims"]
    if "[" in row["kernel"] or "K" not in d:
        return None
    M, N, K = d["M"], d["N"], d["K"]

    def run():
        A, B = ctx.rnd(M, K), ctx.rnd(K, N)
        res = {"what": "torch.matmul fp32"}
        for tf32 in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            t = ctx.time(lambda: A @ B)
            if tf32:
                res["tf32_ms"] = t["median_ms"]
            else:
                res.update(t)
        torch.backends.cuda.matmul.allow_tf32 = False
        return res
    return ctx.once(("matmul", M, N, K), run)
