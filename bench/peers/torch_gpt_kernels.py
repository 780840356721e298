#!/usr/bin/env python3
"""PyTorch peers of the GPT-block families (matmul, norm, elementwise, loss, attention), fp32, CUDA
events, median of --reps after a warm-up; the same shapes as the families' bench sections.
Writes one JSON list of rows {group, op, shape, ms, tflops?, gbps?}.

usage: python3 bench/peers/torch_gpt_kernels.py --out torch_gpt.json [--reps 25] [--quick]
"""
import argparse, json, math
import torch
import torch.nn.functional as F


def timeit(fn, reps, warm_ms=200.0):
    # busy warm-up (clocks), then reps timed by CUDA events, median
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    n = 0
    while True:
        fn(); n += 1
        e.record(); torch.cuda.synchronize()
        if s.elapsed_time(e) >= warm_ms and n >= 3:
            break
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    dev = "cuda"
    rows = []
    g = torch.Generator(device=dev).manual_seed(1)

    def rnd(*shape):
        return torch.rand(*shape, device=dev, generator=g) * 2 - 1

    def add(group, op, shape, ms, flops=0.0, nbytes=0):
        r = {"group": group, "op": op, "shape": shape, "ms": ms}
        if flops: r["tflops"] = flops / (ms * 1e-3) / 1e12
        if nbytes: r["gbps"] = nbytes / (ms * 1e-3) / 1e9
        rows.append(r)
        print(f"{group:12s} {op:34s} {shape:26s} {ms:9.4f} ms" +
              (f" {r['tflops']:7.2f} TFLOP/s" if flops else "") + (f" {r['gbps']:8.1f} GB/s" if nbytes else ""),
              flush=True)

    # ---- matmul: cubes and the GPT shapes (B*T=4096, d=768, vocab 16384), forward and backward
    cubes = [256, 512, 1024] if a.quick else [256, 512, 1024, 2048, 4096]
    shapes = [(n, n, n) for n in cubes]
    if not a.quick:
        shapes += [(4096, 2304, 768), (4096, 3072, 768), (4096, 768, 3072), (4096, 16384, 768),
                   (4096, 768, 2304), (768, 2304, 4096), (4096, 768, 16384), (768, 16384, 4096)]
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for (M, N, K) in shapes:
            A, B = rnd(M, K), rnd(K, N)
            ms = timeit(lambda: A @ B, a.reps)
            add("matmul", "torch.matmul fp32" + (" TF32" if tf32 else ""), f"{M}x{N}x{K}", ms, 2.0 * M * N * K)
    torch.backends.cuda.matmul.allow_tf32 = False

    # ---- layernorm, GELU (tanh), residual add, cross-entropy
    for rows_n in ([4096] if a.quick else [4096, 16384]):
        for d in [96, 128, 192, 256, 768]:
            x, w, b = rnd(rows_n, d), rnd(d), rnd(d)
            add("norm", "F.layer_norm fwd", f"{rows_n}x{d}", timeit(lambda: F.layer_norm(x, (d,), w, b), a.reps),
                nbytes=8 * rows_n * d + 8 * rows_n)
            xg = x.clone().requires_grad_(True); wg = w.clone().requires_grad_(True); bg = b.clone().requires_grad_(True)
            y = F.layer_norm(xg, (d,), wg, bg); dy = rnd(rows_n, d)
            add("norm", "F.layer_norm bwd", f"{rows_n}x{d}",
                timeit(lambda: torch.autograd.grad(y, (xg, wg, bg), dy, retain_graph=True), a.reps),
                nbytes=12 * rows_n * d)
            x4 = rnd(rows_n, 4 * d)
            add("elementwise", "F.gelu(tanh) fwd", f"{rows_n}x{4*d}",
                timeit(lambda: F.gelu(x4, approximate="tanh"), a.reps), nbytes=8 * rows_n * 4 * d)
            y2 = rnd(rows_n, d)
            add("elementwise", "residual add", f"{rows_n}x{d}", timeit(lambda: x + y2, a.reps), nbytes=12 * rows_n * d)
        for V in [16384, 50304]:
            logits = rnd(rows_n, V) * 4
            tgt = torch.randint(0, V, (rows_n,), device=dev, generator=g)
            add("loss", "F.cross_entropy fwd", f"{rows_n}x{V}", timeit(lambda: F.cross_entropy(logits, tgt), a.reps),
                nbytes=4 * rows_n * V)
            lg = logits.clone().requires_grad_(True)
            loss = F.cross_entropy(lg, tgt)
            add("loss", "F.cross_entropy bwd", f"{rows_n}x{V}",
                timeit(lambda: torch.autograd.grad(loss, lg, retain_graph=True), a.reps), nbytes=8 * rows_n * V)

    # ---- attention: causal SDPA, math backend and default backend
    from torch.nn.attention import sdpa_kernel, SDPBackend
    att = [(8, 3, 128, 32), (8, 4, 128, 32), (8, 6, 256, 32), (8, 8, 256, 32), (4, 8, 512, 64)]
    if a.quick: att = att[:2]
    for (B, H, T, hd) in att:
        q, k, v = rnd(B, H, T, hd), rnd(B, H, T, hd), rnd(B, H, T, hd)
        flops = 4.0 * B * H * T * T * hd / 2
        for name, backends in (("math", [SDPBackend.MATH]), ("default", None)):
            def run():
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if backends:
                with sdpa_kernel(backends):
                    ms = timeit(run, a.reps)
            else:
                ms = timeit(run, a.reps)
            add("attention", f"SDPA causal fwd ({name})", f"B{B} H{H} T{T} hd{hd}", ms, flops)
    json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows},
              open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
