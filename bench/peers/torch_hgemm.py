# cuBLAS HGEMM through torch.matmul (f16 inputs; PyTorch's default f16 GEMM accumulates in f32)
# at N^3, CUDA events, median of 30 after warm-up: the peer of sgmm_f16 / sgmm_f16_tiled8
# (bench/gpu_sgmm.sh). Then gpt110m's products (2048 rows; the shapes of test_subgroup_matrix's
# Bench4096): forward x W, dX = dY W^T, dW += x^T dY (addmm_, accumulating as ACCUMULATE does).
import sys
import time

import torch


def timed(fn):
    # warm-up: at least 10 calls and 300 ms of them (the GPU's clock leaves its idle state), as
    # test_subgroup_matrix and dawn_sgmm.mjs do
    t0 = time.perf_counter()
    i = 0
    while i < 10 or time.perf_counter() - t0 < 0.3:
        fn()
        i += 1
        if i % 16 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    ms = []
    for _ in range(30):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ms.append(s.elapsed_time(e))
    ms.sort()
    return ms[0], ms[len(ms) // 2]


for n in [int(x) for x in (sys.argv[1:] or ["2048", "4096"])]:
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    lo, med = timed(lambda: torch.matmul(a, b))
    print(f"torch_hgemm {n}^3: min {lo:.4f} ms, median {med:.4f} ms: "
          f"{2 * n**3 / (med * 1e-3) / 1e12:.1f} TFLOP/s (median), torch {torch.__version__}, "
          f"reduced-precision reduction {torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}")

rows = 2048
for d_in, d_out in [(768, 2304), (768, 768), (768, 3072), (3072, 768)]:
    x = torch.randn(rows, d_in, device="cuda", dtype=torch.float16)
    w = torch.randn(d_in, d_out, device="cuda", dtype=torch.float16)
    dy = torch.randn(rows, d_out, device="cuda", dtype=torch.float16)
    dw = torch.zeros(d_in, d_out, device="cuda", dtype=torch.float32)
    cases = [((rows, d_out, d_in, 0), lambda: torch.matmul(x, w)),
             ((rows, d_in, d_out, 2), lambda: torch.matmul(dy, w.t())),
             # f32 master gradient += f16 x^T dY: the f16 product in f32, added (as ACCUMULATE)
             ((d_in, d_out, rows, 9), lambda: dw.add_(torch.matmul(x.t(), dy).float()))]
    for (M, N, K, flags), fn in cases:
        lo, med = timed(fn)
        print(f"torch_hgemm gpt {M}x{N}x{K} flags {flags}: median {med:.4f} ms: "
              f"{2 * M * N * K / (med * 1e-3) / 1e12:.1f} TFLOP/s (median)")
