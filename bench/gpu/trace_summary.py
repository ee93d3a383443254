#!/usr/bin/env python3
"""Sums the GPU kernels of a Chrome trace (`tuneframe-engine bench --profile FILE`, or
torch.profiler's export_chrome_trace) by name and by kind, to see where a step's time goes.

    bench/gpu/trace_summary.py TRACE.json [--top N]
"""
import argparse
import collections
import json
import re

KINDS = [  # first match wins
    ("attention", re.compile(r"flash|fmha|attention|sdpa|cudnn.*(?:sdpa|attn)", re.I)),
    ("gemm", re.compile(r"gemm|sm90_xmma|cutlass|nvjet|cublas|matmul", re.I)),
    ("norm", re.compile(r"norm", re.I)),
    ("copy/cast", re.compile(r"copy|cast|Memcpy|Memset", re.I)),
    ("reduce", re.compile(r"reduce", re.I)),
    ("elementwise", re.compile(r"elementwise|vectorized|unrolled", re.I)),
]


def kind_of(name):
    for kind, pattern in KINDS:
        if pattern.search(name):
            return kind
    return "other"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with open(args.trace) as f:
        events = json.load(f)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    by_name = collections.Counter()
    calls = collections.Counter()
    by_kind = collections.Counter()
    for event in events:
        if event.get("ph") != "X" or event.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        name = event.get("name", "?")
        duration = float(event.get("dur", 0)) / 1e3  # microseconds -> ms
        by_name[name] += duration
        calls[name] += 1
        by_kind[kind_of(name)] += duration
    total = sum(by_kind.values())
    print(f"GPU busy: {total:.1f} ms")
    for kind, ms in by_kind.most_common():
        print(f"  {kind:12s} {ms:9.1f} ms {100 * ms / max(total, 1e-9):5.1f}%")
    print(f"top {args.top} kernels:")
    for name, ms in by_name.most_common(args.top):
        print(f"  {ms:9.1f} ms {calls[name]:6d}x  {name[:110]}")


if __name__ == "__main__":
    main()
