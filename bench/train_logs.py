"""Readers of the logs bench/gpu_train.sh writes under its raw/ folder, shared by the summaries
it prints (its inline Python imports this file; PYTHONPATH is the bench folder)."""
import json
import os
import re
import statistics as st


def losses(raw, name):
    """{step: loss} of a run's `--json` log (`name`.ours.jsonl), {} when absent."""
    p = os.path.join(raw, name + ".ours.jsonl")
    if not os.path.exists(p):
        return {}
    return {j["step"]: j["loss"] for j in map(json.loads, open(p)) if j.get("event") == "train"}


def steady(raw, name):
    """(mean ms/step of the progress lines without the first and last interval, the profiled
    step's GPU ms or None) of `name`.txt; nan when there is no progress line."""
    iv, gpu = [], None
    p = os.path.join(raw, name + ".txt")
    if os.path.exists(p):
        for line in open(p):
            m = re.match(r"step\s+(\d+)/\d+\s+loss .* ([\d.]+) ms/step", line)
            if m:
                iv.append(float(m.group(2)))
            m = re.match(r"\| \*\*step\*\* \| \d+ \| ([\d.]+) \|", line)
            if m:
                gpu = float(m.group(1))
    mid = iv[1:-1] if len(iv) > 2 else iv[1:]
    return (st.mean(mid) if mid else float("nan")), gpu


def torch(path, what):
    """From a PyTorch peer's log: `torch <what>: X ms/step`, or with what = "worst" its loss
    comparison's worst relative difference; nan when absent."""
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"torch " + what + r": ([\d.]+) ms/step", line)
            if m:
                return float(m.group(1))
            m = re.match(r"worst relative difference over (\d+) logged steps: (\S+)", line)
            if m and what == "worst":
                return float(m.group(2))
    return float("nan")
