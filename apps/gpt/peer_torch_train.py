#!/usr/bin/env python3
"""PyTorch peer of `wgslvk train` (apps/gpt, issue 12): the same GPT-2-shaped model (pre-LN,
tied embeddings, tanh GELU, layernorm eps from the config, linear weights stored [d_in, d_out] as
in our checkpoint), the same AdamW (decay on 2-D tensors only, our clip rule
min(1, max_norm / max(norm, 1e-6)), bias-corrected, decoupled decay), the same lr schedule, the
same initial weights (read from our safetensors checkpoint, so PyTorch opens our files) and the
same batches (the file `wgslvk train --dump-batches` writes). Prints the loss per step; with
--compare it reads a `wgslvk train --json` log and prints the relative difference at every
logged step (the issue's gate: within 1% over 200 steps, fp32).

  # on the GPU machine, from the repository root:
  wgslvk train --preset small --steps 200 --save-init /tmp/init.safetensors \
      --log-every 1 --json /tmp/ours.jsonl
  wgslvk train --preset small --steps 200 --dump-batches /tmp/batches.u32
  python3 apps/gpt/peer_torch_train.py --init /tmp/init.safetensors \
      --batches /tmp/batches.u32 --steps 200 --compare /tmp/ours.jsonl [--tf32] [--time]
"""
import argparse, json, math, struct, sys, time

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors(path):
    """Our checkpoint's F32 weights (the optimizer state keys are skipped)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in header.items():
        if k == "__metadata__" or ".exp_avg" in k:
            continue
        if v["dtype"] != "F32":
            continue
        b, e = v["data_offsets"]
        out[k] = np.frombuffer(data[b:e], dtype=np.float32).reshape(v["shape"]).copy()
    return out, header.get("__metadata__", {})


def lr_at(tc, t):
    w = tc["warmup_steps"] or min(100, tc["steps"] // 10)
    lr = tc["lr"]
    if w and t <= w:
        return lr * t / w
    if tc["schedule"] == "constant" or tc["steps"] <= w:
        return lr
    p = min(1.0, max(0.0, (t - w) / (tc["steps"] - w)))
    lo = lr * tc["min_lr_ratio"]
    return lo + 0.5 * (lr - lo) * (1 + math.cos(math.pi * p))


class GPT(torch.nn.Module):
    def __init__(self, mc, weights, dev):
        super().__init__()
        self.mc = mc
        self.p = torch.nn.ParameterDict()
        for k, v in weights.items():
            self.p[k.replace(".", "__")] = torch.nn.Parameter(torch.tensor(v, device=dev))

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def forward(self, tok, tgt):
        mc = self.mc
        B, T = tok.shape
        d, H = mc["d_model"], mc["heads"]
        hd = d // H
        scale = float(np.float32(1.0 / math.sqrt(hd)))
        eps = mc["ln_eps"]
        x = self.w("wte")[tok] + self.w("wpe")[:T][None]
        for l in range(mc["layers"]):
            p = f"h.{l}."
            h = F.layer_norm(x, (d,), self.w(p + "ln1.weight"), self.w(p + "ln1.bias"), eps)
            qkv = h @ self.w(p + "attn.qkv.weight") + self.w(p + "attn.qkv.bias")
            q, k, v = qkv.split(d, dim=-1)
            q, k, v = (t.view(B, T, H, hd).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
            y = y.transpose(1, 2).reshape(B, T, d)
            x = x + (y @ self.w(p + "attn.proj.weight") + self.w(p + "attn.proj.bias"))
            h = F.layer_norm(x, (d,), self.w(p + "ln2.weight"), self.w(p + "ln2.bias"), eps)
            f = F.gelu(h @ self.w(p + "mlp.fc.weight") + self.w(p + "mlp.fc.bias"),
                       approximate="tanh")
            x = x + (f @ self.w(p + "mlp.proj.weight") + self.w(p + "mlp.proj.bias"))
        h = F.layer_norm(x, (d,), self.w("lnf.weight"), self.w("lnf.bias"), eps)
        logits = h @ self.w("wte").t()
        return F.cross_entropy(logits.view(-1, logits.size(-1)), tgt.view(-1))


def gpu_busy_ms(step, k):
    """The GPU's busy time per step: k steps under torch.profiler, the union of the device
    events' intervals (kernels, copies, memsets) from its Chrome trace, divided by k. Eager
    PyTorch's wall time per step minus this is time the GPU waited for the host."""
    import os, tempfile
    from torch.profiler import profile, ProfilerActivity
    step(0)  # warm the profiler-free path once more
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(k):
            step(i)
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)
    finally:
        os.unlink(path)
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    iv = sorted((e["ts"], e["ts"] + e.get("dur", 0)) for e in events
                if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    busy, end = 0.0, float("-inf")
    for a0, a1 in iv:  # union of intervals, in microseconds
        if a1 > end:
            busy += a1 - max(a0, end)
            end = a1
    return busy / 1e3 / k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True, help="checkpoint from wgslvk train --save-init")
    ap.add_argument("--batches", required=True, help="file from wgslvk train --dump-batches")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 matmuls (default: off)")
    ap.add_argument("--compare", help="a wgslvk train --json log to compare against")
    ap.add_argument("--json", help="write our losses as JSON lines")
    ap.add_argument("--time", action="store_true", help="print step time and tokens/s")
    ap.add_argument("--bf16", action="store_true",
                    help="forward under torch.autocast(bfloat16) (weights and AdamW stay fp32)")
    ap.add_argument("--steady-from", type=int, default=0,
                    help="with --time, also the steady state: ms/step over steps after this one "
                         "(the clock starts once step N has finished on the GPU)")
    ap.add_argument("--gpu-busy", type=int, default=0, metavar="K",
                    help="with --time, after the timed steps run K more on the last batch under "
                         "torch.profiler and print the GPU's busy time per step (kernels, copies "
                         "and memsets from the trace): eager PyTorch's wall time minus this is "
                         "host time the GPU waited for")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.allow_tf32 = a.tf32

    with open(a.init + ".json") as f:
        cfg = json.load(f)
    mc, tc = cfg["model"], cfg["train"]
    weights, meta = read_safetensors(a.init)
    B, T = tc["batch"], mc["context"]
    model = GPT(mc, weights, a.device)
    decay = [p for n, p in model.p.items() if p.dim() == 2]
    no_decay = [p for n, p in model.p.items() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": tc["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=tc["lr"], betas=(tc["beta1"], tc["beta2"]), eps=tc["eps"])
    raw = np.fromfile(a.batches, dtype=np.uint32)
    per = 2 * B * T
    if raw.size < per * a.steps:
        sys.exit(f"{a.batches}: {raw.size // per} batches, need {a.steps}")
    losses = []
    jf = open(a.json, "w") if a.json else None
    t0 = time.perf_counter()
    def one_step(t, tok, tgt):
        for g in opt.param_groups:
            g["lr"] = lr_at(tc, t)
        with torch.autocast(device_type=a.device.split(":")[0], dtype=torch.bfloat16,
                            enabled=a.bf16):
            loss = model(tok, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if tc["max_grad_norm"] is not None:
            # our rule, on the device (no host sync inside the step)
            norm = torch.sqrt(sum((p.grad.float() ** 2).sum() for p in model.parameters()))
            clip = torch.clamp(tc["max_grad_norm"] / torch.clamp(norm, min=1e-6), max=1.0)
            for p in model.parameters():
                p.grad.mul_(clip)
        opt.step()
        return loss

    for t in range(1, a.steps + 1):
        chunk = raw[(t - 1) * per: t * per].astype(np.int64)
        tok = torch.tensor(chunk[:B * T].reshape(B, T), device=a.device)
        tgt = torch.tensor(chunk[B * T:].reshape(B, T), device=a.device)
        losses.append(one_step(t, tok, tgt).detach())
        if t == a.steady_from:
            if a.device == "cuda":
                torch.cuda.synchronize()
            t_steady = time.perf_counter()
    if a.device == "cuda":
        torch.cuda.synchronize()
    t_end = time.perf_counter()
    secs = t_end - t0
    losses = [float(l) for l in losses]
    if jf:
        for t, l in enumerate(losses, 1):
            jf.write(json.dumps({"event": "train", "step": t, "loss": l}) + "\n")
    for t, l in enumerate(losses, 1):
        print(f"step {t:5d} loss {l:.6f}")
    if a.time:
        print(f"torch: {secs * 1e3 / a.steps:.2f} ms/step, {a.steps * B * T / secs:.0f} tok/s "
              f"(losses read back at the end), tf32 {'on' if a.tf32 else 'off'}"
              f"{', bf16 autocast' if a.bf16 else ''}")
        if 0 < a.steady_from < a.steps:
            n = a.steps - a.steady_from
            print(f"torch steady: {(t_end - t_steady) * 1e3 / n:.3f} ms/step over steps "
                  f"{a.steady_from + 1}..{a.steps}")
        if a.gpu_busy > 0 and a.device == "cuda":
            try:
                busy = gpu_busy_ms(lambda i: one_step(a.steps, tok, tgt), a.gpu_busy)
                print(f"torch gpu-busy: {busy:.3f} ms/step of kernels, copies and memsets "
                      f"({a.gpu_busy} more steps on the last batch under torch.profiler; the "
                      f"timed steps above ran without it)")
            except Exception as e:  # the timing above stands; say why the profile is missing
                print(f"torch gpu-busy: not measured ({type(e).__name__}: {e})")
    if a.compare:
        ours = {}
        with open(a.compare) as f:
            for line in f:
                j = json.loads(line)
                if j.get("event") == "train":
                    ours[j["step"]] = j["loss"]
        worst = 0.0
        for s, l in sorted(ours.items()):
            if s <= len(losses):
                r = abs(l - losses[s - 1]) / losses[s - 1]
                worst = max(worst, r)
                print(f"compare step {s:5d} wgslvk {l:.6f} torch {losses[s - 1]:.6f} rel {r:.2e}")
        print(f"worst relative difference over {len(ours)} logged steps: {worst:.3e} "
              f"({'PASS' if worst <= 0.01 else 'FAIL'} at the 1% gate)")


if __name__ == "__main__":
    main()
