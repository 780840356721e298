#!/usr/bin/env bash
# Call F (2026-11-26): the run of record, part 2: the GPT-block families and Adafactor with
# PyTorch and Dawn beside them (validate ran in call E on the same binary).
# run(command="bash bench/results/h200-2026-11-26/run_f.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk.xz"])
DAWN_BUDGET_S=170 exec bash bench/gpu_peers.sh --skip-validate --only matmul,norm,elementwise,loss,attention,adafactor
