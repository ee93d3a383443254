#!/usr/bin/env python3
"""Runs the reference step script under torch.profiler and writes a Chrome trace, for
bench/gpu/trace_summary.py to put beside ours (`tuneframe-engine bench --profile`).

    bench/gpu/profile_reference.py TRACE.json .gpu-kit/ref_lora_step.py --model 2b --steps 1
"""
import runpy
import sys

import torch


def main():
    trace, script, *rest = sys.argv[1:]
    sys.argv = [script, *rest]
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        runpy.run_path(script, run_name="__main__")
    profile.export_chrome_trace(trace)


if __name__ == "__main__":
    main()
