# cuBLAS HGEMM through torch.matmul (f16 inputs; PyTorch's default f16 GEMM accumulates in f32)
# at N^3, CUDA events, median of 30 after warm-up: the peer of sgmm_f16 (bench/gpu_sgmm.sh).
import sys
import torch

for n in [int(x) for x in (sys.argv[1:] or ["2048", "4096"])]:
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    for _ in range(10):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    ms = []
    for _ in range(30):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.matmul(a, b)
        e.record()
        torch.cuda.synchronize()
        ms.append(s.elapsed_time(e))
    ms.sort()
    med = ms[len(ms) // 2]
    print(f"torch_hgemm {n}^3: min {ms[0]:.4f} ms, median {med:.4f} ms: "
          f"{2 * n**3 / (med * 1e-3) / 1e12:.1f} TFLOP/s (median), torch {torch.__version__}, "
          f"reduced-precision reduction {torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction}")
