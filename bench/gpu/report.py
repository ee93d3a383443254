"""Collects what bench/gpu/run.sh left in its output folder into gpu-proof.json and prints the
comparison table. Exit status 0 only when the gpu tests passed and every model has both figures.

Inputs in OUT_DIR: host.json (host_check.py), run.json (the run's settings), ctest-gpu.log,
ours-<model>.json and ours-<model>-best.json (our best setting), ref-<model>.json and
ref-<model>-compile.json (the reference under torch.compile), one JSON object each, or the
matching .err (failed) or .skipped (not run) file.
"""
import argparse
import datetime
import json
import os
import re
import sys

GIB = 2**30
CTEST_LINE = re.compile(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*(\*+)?\s*(Passed|Failed|Skipped|Not Run|Timeout|Exception|\w+)")


def read_json(path):
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except (OSError, ValueError):
        return None


def tail(path, lines=6):
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            text = stream.read().strip().splitlines()
    except OSError:
        return "no output"
    return "\n".join(text[-lines:]) if text else "no output"


def ctest_summary(path):
    results = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                match = CTEST_LINE.search(line)
                if match:
                    results[match.group(1)] = match.group(3).lower().replace(" ", "_")
    except OSError:
        return None
    counts = {}
    for status in results.values():
        counts[status] = counts.get(status, 0) + 1
    return {"tests": results, "counts": counts}


def ratio(ours, reference):
    if ours is None or reference is None or reference <= 0:
        return None
    return ours / reference


def ours_figures(result):
    peak = result.get("peak_memory_bytes")
    return {
        "step_s": result.get("median_step_s"),
        "peak_gib": peak / GIB if isinstance(peak, (int, float)) else None,
        "mfu": result.get("mfu"),
    }


def model_row(out_dir, model):
    """Ours (every block recomputed), our best setting (ours-<model>-best: attention kept, fp8
    base) and the reference eager (ref-<model>) and under torch.compile (ref-<model>-compile)."""
    row = {"model": model}
    ours = read_json(os.path.join(out_dir, f"ours-{model}.json"))
    if ours is not None:
        row["ours"] = ours
        figures = ours_figures(ours)
        row["ours_step_s"] = figures["step_s"]
        row["ours_peak_gib"] = figures["peak_gib"]
        row["ours_mfu"] = figures["mfu"]
    else:
        row["ours_error"] = tail(os.path.join(out_dir, f"ours-{model}.err"))
    best = read_json(os.path.join(out_dir, f"ours-{model}-best.json"))
    if best is not None:
        row["best"] = best
        row["best_figures"] = ours_figures(best)
    elif os.path.exists(os.path.join(out_dir, f"ours-{model}-best.err")):
        row["best_error"] = tail(os.path.join(out_dir, f"ours-{model}-best.err"))
    for key, name in (("reference", model), ("compiled", model + "-compile")):
        reference = read_json(os.path.join(out_dir, f"ref-{name}.json"))
        if reference is not None:
            row[key] = reference
            row[key + "_step_s"] = reference.get("median_step_s")
            row[key + "_peak_gib"] = reference.get("peak_mem_gib")
        elif os.path.exists(os.path.join(out_dir, f"ref-{name}.skipped")):
            row[key + "_skipped"] = tail(os.path.join(out_dir, f"ref-{name}.skipped"), 1)
        elif os.path.exists(os.path.join(out_dir, f"ref-{name}.err")) or key == "reference":
            row[key + "_error"] = tail(os.path.join(out_dir, f"ref-{name}.err"))
    for key in ("reference", "compiled"):
        suffix = "" if key == "reference" else "_compiled"
        row["step_ratio" + suffix] = ratio(row.get("ours_step_s"), row.get(key + "_step_s"))
        row["peak_ratio" + suffix] = ratio(row.get("ours_peak_gib"), row.get(key + "_peak_gib"))
    figures = row.get("best_figures")
    if figures:
        row["best_step_ratio_compiled"] = ratio(figures["step_s"], row.get("compiled_step_s"))
        row["best_peak_ratio_compiled"] = ratio(figures["peak_gib"], row.get("compiled_peak_gib"))
    return row


def swap_row(out_dir, model):
    """The block-swap pair of `model` (run.sh's ours-<model>-fp8 / -swap), or None when absent."""
    pair = {}
    for run in ("fp8", "swap"):
        path = os.path.join(out_dir, f"ours-{model}-{run}.json")
        result = read_json(path)
        if result is not None:
            pair[run] = result
        elif os.path.exists(os.path.join(out_dir, f"ours-{model}-{run}.err")):
            pair[run + "_error"] = tail(os.path.join(out_dir, f"ours-{model}-{run}.err"))
    if not pair:
        return None
    row = {"model": model}
    for run in ("fp8", "swap"):
        result = pair.get(run)
        if result is None:
            row[run + "_error"] = pair.get(run + "_error", "no output")
            continue
        peak = result.get("peak_memory_bytes")
        limit = result.get("memory_limit_bytes") or 0
        row[run] = {
            "step_s": result.get("median_step_s"),
            "peak_gib": peak / GIB if isinstance(peak, (int, float)) else None,
            "limit_gib": limit / GIB if limit else None,
            "blocks_to_swap": result.get("blocks_to_swap", 0),
        }
    if "fp8" in row and "swap" in row:
        row["step_ratio"] = ratio(row["swap"]["step_s"], row["fp8"]["step_s"])
    return row


def swap_table(rows):
    lines = [
        "| block swap | s/step | peak GiB | cap GiB | blocks swapped | step vs no swap |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        for run in ("fp8", "swap"):
            figures = row.get(run)
            if figures is None:
                lines.append(f"| {row['model']} {run} | failed | | | | |")
                continue
            lines.append(
                "| {} {} | {} | {} | {} | {} | {} |".format(
                    row["model"],
                    run,
                    cell(figures["step_s"], 2),
                    cell(figures["peak_gib"], 2),
                    cell(figures["limit_gib"], 1),
                    figures["blocks_to_swap"],
                    cell(row.get("step_ratio"), 2) if run == "swap" else "",
                )
            )
    return "\n".join(lines)


def cell(value, digits):
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}"


def percent(value):
    return "n/a" if value is None else f"{100 * value:.0f}%"


def table(rows, run):
    lines = [
        "| model | ours s/step | MFU | reference s/step | ratio | compiled s/step | ratio "
        "| ours peak GiB | reference peak GiB | ratio | compiled peak GiB | ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        ours_failed = "ours_error" in row

        def side(key, field, digits=2):
            return "failed" if key + "_error" in row else cell(row.get(f"{key}_{field}"), digits)

        lines.append(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                row["model"] + (" (cpu dry run)" if run.get("mode") == "cpu-dry-run" else ""),
                "failed" if ours_failed else cell(row.get("ours_step_s"), 2),
                percent(row.get("ours_mfu")),
                side("reference", "step_s"),
                cell(row.get("step_ratio"), 2),
                side("compiled", "step_s"),
                cell(row.get("step_ratio_compiled"), 2),
                "failed" if ours_failed else cell(row.get("ours_peak_gib"), 2),
                side("reference", "peak_gib"),
                cell(row.get("peak_ratio"), 2),
                side("compiled", "peak_gib"),
                cell(row.get("peak_ratio_compiled"), 2),
            )
        )
    return "\n".join(lines)


def best_table(rows):
    lines = [
        "| our best (attention kept, fp8 base) | s/step | MFU | peak GiB "
        "| step vs compiled | peak vs compiled |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        figures = row.get("best_figures")
        if figures is None:
            if "best_error" in row:
                lines.append(f"| {row['model']} | failed | | | | |")
            continue
        lines.append(
            "| {} | {} | {} | {} | {} | {} |".format(
                row["model"],
                cell(figures["step_s"], 2),
                percent(figures["mfu"]),
                cell(figures["peak_gib"], 2),
                cell(row.get("best_step_ratio_compiled"), 2),
                cell(row.get("best_peak_ratio_compiled"), 2),
            )
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    args = parser.parse_args()
    out_dir = args.out_dir
    run = read_json(os.path.join(out_dir, "run.json")) or {}
    host = read_json(os.path.join(out_dir, "host.json")) or {}
    tests = ctest_summary(os.path.join(out_dir, "ctest-gpu.log"))
    rows = [model_row(out_dir, model) for model in run.get("models", [])]
    swap_rows = [row for row in (swap_row(out_dir, model) for model in run.get("models", [])) if row]

    dry_run = run.get("mode") == "cpu-dry-run"
    problems = []
    if run.get("tests") == "skipped":
        problems.append("the gpu tests were not run (--skip-tests)")
    elif tests is None or not tests["tests"]:
        problems.append("no gpu test results (see ctest-gpu.log)")
    else:
        bad = [name for name, status in tests["tests"].items() if status not in ("passed", "skipped")]
        skipped = [name for name, status in tests["tests"].items() if status == "skipped"]
        if bad:
            problems.append("gpu tests failed: " + ", ".join(sorted(bad)))
        if skipped and not dry_run and not run.get("allow_skipped_tests"):
            problems.append("gpu tests skipped on a GPU host: " + ", ".join(sorted(skipped)))
    for row in rows:
        if "ours_error" in row:
            problems.append(f"{row['model']}: tuneframe-engine bench failed")
        if "best_error" in row:
            problems.append(f"{row['model']}: tuneframe-engine bench (best setting) failed")
        if "reference_error" in row:
            problems.append(f"{row['model']}: ref_lora_step.py failed")
        if "compiled_error" in row:
            problems.append(f"{row['model']}: ref_lora_step.py --compile failed")
    for row in swap_rows:
        for kind in ("fp8", "swap"):
            if kind + "_error" in row:
                problems.append(f"{row['model']}: tuneframe-engine bench ({kind}) failed")

    proof = {
        "schema": "tuneframe-gpu-proof/1",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "ok": not problems,
        "problems": problems,
        "run": run,
        "host": host,
        "tests": tests,
        "models": rows,
        "block_swap": swap_rows,
    }
    with open(os.path.join(out_dir, "gpu-proof.json"), "w", encoding="utf-8") as stream:
        json.dump(proof, stream, indent=2)
        stream.write("\n")

    shape = run.get("shape", {})
    device = host.get("device_name") or ("CPU" if dry_run else "unknown device")
    print()
    torch = (
        "torch {} (CUDA {})".format(host["torch"], host.get("torch_cuda") or "none")
        if "torch" in host
        else "LibTorch at " + run.get("torch_prefix", "?")
    )
    print(
        "GPU proof: {}, {}, {} x {} x {}, LoRA r{}, {}, {}, median of {} steps".format(
            device,
            torch,
            shape.get("frames"),
            shape.get("height"),
            shape.get("width"),
            shape.get("rank"),
            "gradient checkpointing" if shape.get("checkpointing") else "no checkpointing",
            shape.get("dtype"),
            run.get("steps"),
        )
    )
    if tests is not None:
        counts = tests["counts"]
        print("gpu tests: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    print()
    print(table(rows, run))
    print()
    print(best_table(rows))
    print()
    print("ratio = ours / reference (below 1: ours is faster or smaller); compiled: the reference "
          "under torch.compile; MFU: model FLOPs (recomputation included) / the GPU's bf16 peak")
    if swap_rows:
        print()
        print(swap_table(swap_rows))
        for row in swap_rows:
            for kind in ("fp8", "swap"):
                if kind + "_error" in row:
                    print(f"\n{row['model']} {kind}, tuneframe-engine bench failed; its last lines:\n"
                          f"{row[kind + '_error']}")
    sides = {
        "ours_error": "tuneframe-engine bench",
        "best_error": "tuneframe-engine bench (best setting)",
        "reference_error": "ref_lora_step.py",
        "compiled_error": "ref_lora_step.py --compile",
    }
    for row in rows:
        for key, side in sides.items():
            if key in row:
                print(f"\n{row['model']}, {side} failed; its last lines:\n{row[key]}")
        if "reference_skipped" in row:
            print(f"{row['model']}: reference not run: {row['reference_skipped']}")
    print(f"\nfigures: {os.path.join(out_dir, 'gpu-proof.json')}")
    if problems:
        print("\nNOT a proof yet:\n  - " + "\n  - ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
