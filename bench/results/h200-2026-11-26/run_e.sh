#!/usr/bin/env bash
# Call E (2026-11-26): the run of record after issue 9's refactor and this session's changes, part
# 1: validate on the real driver, then optimizer + embedding + gradient norm + the whole step,
# with PyTorch and Dawn beside them (in-place cases now restored before every repeat).
# run(command="bash bench/results/h200-2026-11-26/run_e.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk.xz"])
DAWN_BUDGET_S=150 exec bash bench/gpu_peers.sh --only optimizer,embedding,grad_norm,step
