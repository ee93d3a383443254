#!/usr/bin/env bash
# Builds the parsers' libFuzzer harnesses (tests/fuzz, the `fuzz` preset, build-fuzz/) with ASan
# and UBSan, replays their seeds (ctest -L fuzz), then fuzzes each for a bounded time.
#   scripts/fuzz.sh [--seconds N] [--slow] [NAME...]
#     --seconds N  fuzzing time per harness (default 15; CI uses the default)
#     --slow       the long run: 600 s per harness
#     NAME         harnesses to run (safetensors, sweep_grid, ...); all by default
# Prints "fuzz NAME: N execs, K crashes" per harness and the total time. Exits 1 on any crash,
# leak, timeout, out-of-memory or sanitizer report; each reproducer is kept in
# build-fuzz/findings/NAME/ (replay: build-fuzz/tests/fuzz/NAME_fuzzer FILE), the full output
# in build-fuzz/fuzz-logs/NAME.log. Inputs found grow build-fuzz/corpus/NAME/, seeded from
# tests/fuzz/corpus/NAME/, which is never written.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=$root/build-fuzz

usage() { sed -n '4,7p' "${BASH_SOURCE[0]}" | sed 's/^# //'; }

seconds=15
names=()
while (($#)); do
    case "$1" in
    --seconds)
        seconds=${2:?--seconds needs a number}
        shift 2
        ;;
    --slow)
        seconds=600
        shift
        ;;
    -h | --help)
        usage
        exit 0
        ;;
    -*)
        usage >&2
        exit 2
        ;;
    *)
        names+=("$1")
        shift
        ;;
    esac
done

started=$SECONDS
"$root/scripts/install-deps.sh"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz
echo "fuzz build and seeds: $((SECONDS - started)) s"

if ((${#names[@]} == 0)); then
    for source in tests/fuzz/*_fuzzer.cpp; do
        name=$(basename "$source" _fuzzer.cpp)
        names+=("$name")
    done
fi

# Executions from libFuzzer's final statistics, or from its last status line when it stopped
# on a finding before printing them.
executions() {
    local count
    count=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$1" | tail -n 1 | awk '{print $2}')
    [[ -n "$count" ]] || count=$(grep -o '^#[0-9]*' "$1" | tail -n 1 | tr -d '#')
    echo "${count:-0}"
}

# Runs one harness; prints its line and returns non-zero on a finding.
fuzz_one() {
    local name=$1
    local binary=$build/tests/fuzz/${name}_fuzzer
    if [[ ! -x "$binary" ]]; then
        echo "fuzz $name: no such harness ($binary)" >&2
        return 2
    fi
    local corpus=$build/corpus/$name findings=$build/findings/$name log=$build/fuzz-logs/$name.log
    mkdir -p "$corpus" "$findings" "$build/fuzz-logs" "$build/tmp"
    cp -r "tests/fuzz/corpus/$name/." "$corpus/"
    local status=0
    TMPDIR=$build/tmp "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" >"$log" 2>&1 || status=$?
    local found
    found=$(grep -c '^artifact_prefix=.*Test unit written to' "$log" || true)
    if ((status != 0 && found == 0)); then
        found=1 # a sanitizer that ended the process before libFuzzer could write the input
    fi
    echo "fuzz $name: $(executions "$log") execs, $found crashes"
    if ((status != 0)); then
        grep -E '^(SUMMARY|==[0-9]+==ERROR|.*runtime error)|Test unit written to' "$log" |
            sed "s|^|    |" >&2 || true
        echo "    full output: $log" >&2
        return 1
    fi
}

failed=0
for name in "${names[@]}"; do
    fuzz_one "$name" || failed=1
done
echo "fuzz: ${#names[@]} harnesses, ${seconds} s each, $((SECONDS - started)) s in all"
if ((failed)); then
    echo "fuzz: findings kept in $build/findings/" >&2
    exit 1
fi
