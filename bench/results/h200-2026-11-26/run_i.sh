#!/usr/bin/env bash
# Call I (2026-11-26): call E again on the final tree (4244fe1: the branch-free 8-bit update):
# validate on the real driver, optimizer + embedding + gradient norm + the whole step with PyTorch
# and Dawn beside them. The run of record for issue 15.
# run(command="bash bench/results/h200-2026-11-26/run_i.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk.xz"])
DAWN_BUDGET_S=90 exec bash bench/gpu_peers.sh --only optimizer,embedding,grad_norm,step
