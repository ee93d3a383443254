#!/usr/bin/env bash
# The GPU proof in one command (bench/gpu/README.md): on a CUDA host with the CUDA toolkit,
# cmake, ninja and PyTorch (+ transformers, peft), build the headless engine against the host's
# LibTorch and the kit's Debian packages, run the gpu-labelled tests, then time our LoRA step and
# the reference (diffusers + PEFT) on the same shapes, one after the other, and print one table.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/gpu/run.sh [options]

  --kit DIR          the kit folder (default: .gpu-kit): the Debian .debs from
                     fetch-debs.sh, diffusers-*-src.tgz, ref_lora_step.py, optionally golden/
  --build-dir DIR    headless build folder (default: build-headless, the preset's)
  --out DIR          where the logs, the per-run JSON and gpu-proof.json go
                     (default: BUILD_DIR/gpu-proof)
  --models "2b 5b"   which models to time (default: 2b 5b), each as ref_lora_step.py
                     names it: 2b, 5b (CogVideoX, 49 x 480 x 720), wan2.1-1.3b,
                     wan2.1-14b (81 x 480 x 832), wan2.2-5b (121 x 704 x 1280)
  --steps N          timed steps per run, after one warm-up (default: 5)
  --jobs N           build parallelism (default: all cores)
  --golden DIR       the golden reference tensors (default: $TUNEFRAME_GOLDEN_DIR,
                     ../shared/golden or KIT/golden)
  --torch-prefix DIR LibTorch's CMake prefix instead of asking python3's torch
  --skip-tests       time only; the proof then says the tests were not run
  --allow-skipped-tests  a gpu test that skips on the GPU host does not fail the proof
  --cpu-dry-run      rehearse the whole flow on a machine without CUDA: tiny shapes on the
                     CPU, the gpu tests (which then skip), no reference timing
EOF
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$repo/bench/gpu
kit=$repo/.gpu-kit
build=$repo/build-headless
out=""
models="2b 5b"
steps=5
jobs=$(nproc 2>/dev/null || echo 4)
golden=""
torch_prefix=""
dry_run=0
skip_tests=0
allow_skips=0
python=${PYTHON:-python3}

while [[ $# -gt 0 ]]; do
    case "$1" in
    --kit) kit=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --golden) golden=$2; shift 2 ;;
    --torch-prefix) torch_prefix=$2; shift 2 ;;
    --skip-tests) skip_tests=1; shift ;;
    --allow-skipped-tests) allow_skips=1; shift ;;
    --cpu-dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

# The bench shape that times each reference model (its name ends in its size in pixels).
bench_shape() {
    case "$1" in
    2b | 5b) echo "$1-49x480x720" ;;
    wan2.1-1.3b | wan2.1-14b) echo "$1-81x480x832" ;;
    wan2.2-5b) echo "$1-121x704x1280" ;;
    *) return 1 ;;
    esac
}
# FRAMESxHEIGHTxWIDTH of a model's run, the dry run's tiny ones included (the Wan VAE's 8x and
# the transformer's 2 x 2 patches want sides of 16k).
run_size() {
    case "$1" in
    tiny) echo 9x48x64 ;;
    wan-tiny) echo 9x64x64 ;;
    *) local shape
        shape=$(bench_shape "$1") && echo "${shape#"$1-"}" ;;
    esac
}

# Every refusal names the missing piece and the fix, then stops before anything is built.
missing() {
    printf '\nGPU proof stopped: missing %s.\n  fix: %s\n' "$1" "$2" >&2
    exit 3
}
step() { printf '\n== %s ==\n' "$*"; }
absolute() { (mkdir -p "$1" && cd "$1" && pwd); }

[[ $steps =~ ^[1-9][0-9]*$ ]] || missing "a whole number for --steps" "e.g. --steps 5"
read -r -a model_list <<<"$models"
models="${model_list[*]}"
[[ -n $models ]] || missing "a model in --models" "e.g. --models \"2b wan2.1-1.3b\""
for model in $models; do
    bench_shape "$model" >/dev/null || missing "a known model in --models ('$model')" \
        "use some of 2b, 5b, wan2.1-1.3b, wan2.1-14b, wan2.2-5b, e.g. \"wan2.1-1.3b wan2.2-5b\""
done
kit=$(absolute "$kit")
build=$(absolute "$build")
stamp=$build/.gpu-proof-torch
# A build folder this script did not configure may be someone's: never write into it.
if [[ -f $build/CMakeCache.txt && ! -f $stamp ]]; then
    missing "a build folder of its own ($build was configured by something else)" \
        "pass --build-dir NEW_FOLDER"
fi
out=$(absolute "${out:-$build/gpu-proof}")
# Only this run's files: a stale ours-5b.json must never end up in a new table.
rm -f "$out"/ours-* "$out"/ref-* "$out"/*.log "$out"/run.json "$out"/host.json \
    "$out"/gpu-proof.json

# 1. The host ---------------------------------------------------------------------------------
step "1/6 host"
[[ $(uname -m) == x86_64 ]] || missing "an x86-64 host (this is $(uname -m))" \
    "the kit's Debian packages are amd64; fetch the host's own architecture's instead"
for tool in cmake ctest ninja "$python" timeout; do
    command -v "$tool" >/dev/null || missing "'$tool' on PATH" "install it (pip install cmake ninja \
gives the first three)"
done
command -v "${CXX:-c++}" >/dev/null || missing "a C++17 compiler ('${CXX:-c++}')" \
    "install g++ or set CXX"
cmake_version=$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
if [[ $(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n1) != 3.25 ]]; then
    missing "CMake 3.25 or newer (found $cmake_version; CMakePresets.json is version 6)" \
        "pip install 'cmake>=3.25' and put it first on PATH"
fi
if command -v dpkg >/dev/null; then
    unpack() { dpkg -x "$1" "$2"; }
elif command -v dpkg-deb >/dev/null; then
    unpack() { dpkg-deb -x "$1" "$2"; }
elif command -v ar >/dev/null && command -v tar >/dev/null; then
    # A .deb is an ar archive whose data.tar.* holds the files, which is all dpkg -x reads.
    unpack() {
        local scratch
        scratch=$(mktemp -d)
        (cd "$scratch" && ar x "$1" && tar -xf data.tar.* -C "$2")
        rm -rf "$scratch"
    }
else
    missing "dpkg, or ar and tar, to unpack the kit's .deb files" "install dpkg or binutils"
fi

reference_check=()
[[ $dry_run == 1 ]] || reference_check=(--reference)
diffusers_dir=$kit/diffusers-src
if [[ $dry_run == 0 ]]; then
    diffusers_tgz=$(ls "$kit"/diffusers-*-src.tgz 2>/dev/null | head -n1 || true)
    [[ -n $diffusers_tgz ]] || missing "diffusers' source in $kit (diffusers-*-src.tgz)" \
        "cp ../shared/gpu/diffusers-0.40.0-src.tgz $kit/"
    [[ -f $kit/ref_lora_step.py ]] || missing "the reference step $kit/ref_lora_step.py" \
        "cp ../shared/gpu/ref_lora_step.py $kit/"
    if [[ ! -f $diffusers_dir/.from || $(cat "$diffusers_dir/.from") != "$diffusers_tgz" ]]; then
        rm -rf "$diffusers_dir"
        mkdir -p "$diffusers_dir"
        tar -xzf "$diffusers_tgz" -C "$diffusers_dir"
        echo "$diffusers_tgz" >"$diffusers_dir/.from"
    fi
    [[ -d $diffusers_dir/diffusers ]] || missing "a diffusers/ package folder in $diffusers_tgz" \
        "copy the tgz from ../shared/gpu again"
fi
# No network on the GPU host: the reference must never try to reach a hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 DIFFUSERS_NO_ADVISORY_WARNINGS=1
PYTHONPATH="$diffusers_dir${PYTHONPATH:+:$PYTHONPATH}" \
    "$python" "$here/host_check.py" "${reference_check[@]}" >"$out/host.json" ||
    missing "a working $python" "check that '$python -c pass' runs"
fact() { "$python" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' "$out/host.json" "$1"; }

if [[ -z $torch_prefix ]]; then
    [[ -z $(fact torch_error) ]] || missing "PyTorch for $python ($(fact torch_error))" \
        "use the python that has torch (PYTHON=/path/to/python3), or give --torch-prefix"
    torch_prefix=$(fact cmake_prefix_path)
    [[ $(fact cxx11_abi) == True ]] || missing "a LibTorch built with the C++11 ABI (torch \
$(fact torch)'s is not, and the kit's Debian libraries are)" "use PyTorch 2.7 or newer"
fi
[[ -d $torch_prefix ]] || missing "LibTorch's CMake files at '$torch_prefix'" \
    "reinstall PyTorch, or pass --torch-prefix DIR holding Torch/TorchConfig.cmake"
if [[ $dry_run == 0 ]]; then
    [[ -n $(fact torch_cuda) ]] || missing "a CUDA build of PyTorch (torch $(fact torch) is \
CPU-only)" "install the CUDA wheel of torch, or rehearse with --cpu-dry-run"
    [[ $(fact cuda_available) == True ]] || missing "a CUDA device visible to PyTorch \
(torch.cuda.is_available() is False; torch $(fact torch), CUDA $(fact torch_cuda))" \
        "run on the GPU host (check nvidia-smi and CUDA_VISIBLE_DEVICES), or rehearse the flow \
with --cpu-dry-run"
    for module in transformers peft diffusers; do
        [[ -z $(fact "${module}_error") ]] || missing "$module for the reference step \
($(fact "${module}_error"))" "install it into $python's environment (diffusers comes from the kit)"
    done
    nvcc=$(command -v nvcc || true)
    for candidate in "${CUDACXX:-}" "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
        [[ -z $nvcc && -n $candidate && -x $candidate ]] && nvcc=$candidate
    done
    [[ -n $nvcc ]] || missing "the CUDA toolkit's nvcc (LibTorch's CMake config looks for it)" \
        "put the toolkit's bin/ on PATH or set CUDA_HOME"
    nvcc_dir=$(dirname "$nvcc")
    export CUDACXX=$nvcc PATH=$nvcc_dir:$PATH
    # The arch of the GPU in the host, so LibTorch's CMake need not probe for it.
    export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-$(fact capability)}
    echo "GPU: $(fact device_name) (compute $(fact capability)), torch $(fact torch), CUDA \
$(fact torch_cuda), nvcc $nvcc"
else
    echo "cpu dry run: no CUDA needed; LibTorch from $torch_prefix"
fi

# 2. The kit ----------------------------------------------------------------------------------
step "2/6 kit"
torch_prefix=$(cd "$torch_prefix" && pwd)
# A build folder configured against another LibTorch mixes ABIs (ARCHITECTURE.md).
if [[ -f $build/CMakeCache.txt && $(cat "$stamp") != "$torch_prefix" ]]; then
    missing "a build folder for this LibTorch ($build was configured against $(cat "$stamp"))" \
        "pass --build-dir NEW_FOLDER, or delete $build"
fi
packages="nlohmann-json3-dev libsentencepiece-dev libsentencepiece0 libprotobuf-lite32 \
libgtest-dev libgmock-dev pkgconf pkgconf-bin libpkgconf3"
# The engine's SHA-256 is libcrypto's: a host without OpenSSL's headers takes them from the kit.
if [[ ! -f /usr/include/openssl/evp.h ]]; then
    packages+=" libssl-dev libssl3"
fi
debs=()
for package in $packages; do
    deb=$(ls "$kit"/"${package}"_*.deb "$kit"/debs/"${package}"_*.deb 2>/dev/null | head -n1 || true)
    [[ -n $deb ]] || missing "the Debian package $package in $kit" \
        "on a Debian 12 machine run ../shared/gpu/fetch-debs.sh $kit, or apt-get download $package there"
    debs+=("$deb")
done
if [[ -z $golden ]]; then
    for candidate in "${TUNEFRAME_GOLDEN_DIR:-}" "$repo/../shared/golden" "$kit/golden"; do
        [[ -z $golden && -n $candidate && -f $candidate/MANIFEST.md ]] && golden=$candidate
    done
fi
if [[ -z $golden ]]; then
    [[ $dry_run == 1 || $skip_tests == 1 ]] || missing "the golden reference tensors (the gpu \
tests compare against them)" "cp -r ../shared/golden $kit/golden, or pass --golden DIR"
    golden=$kit/golden # absent: the golden tests skip, which a dry run allows
fi
golden=$(cd "$golden" 2>/dev/null && pwd || echo "$golden")
prefix=$build/kit-prefix
case "$prefix" in /* ) ;; *) missing "an absolute prefix" "pass an absolute --build-dir" ;; esac
[[ $prefix != / ]] || missing "a prefix other than /" "pass another --build-dir"
# Into a prefix of our own, never into /: the host's system stays as it was.
rm -rf "$prefix"
mkdir -p "$prefix"
for deb in "${debs[@]}"; do
    unpack "$deb" "$prefix"
done
libdir=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH=$libdir/pkgconfig:$prefix/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH
# The .pc files say prefix=/usr; the sysroot turns that into the unpacked copy.
export PKG_CONFIG_SYSROOT_DIR=$prefix
pkgconf=$prefix/usr/bin/pkgconf
sentencepiece=$("$pkgconf" --modversion sentencepiece 2>&1) ||
    missing "a pkgconf from the kit that runs here ($sentencepiece)" \
        "the kit holds Debian 12 binaries; the host needs glibc 2.36 or newer"
echo "unpacked ${#debs[@]} packages into $prefix (SentencePiece $sentencepiece)"

# 3. Configure --------------------------------------------------------------------------------
step "3/6 configure"
echo "$torch_prefix" >"$stamp"
# No TensorBoard writer: the proof needs no protobuf, which a bare GPU host lacks.
configure=(cmake --preset headless -B "$build" -DTUNEFRAME_WITH_FFMPEG=OFF
    -DTUNEFRAME_WITH_TENSORBOARD=OFF
    # The kit first, so a host's own copies of these packages never shadow the kit's.
    "-DCMAKE_PREFIX_PATH=$prefix/usr;$torch_prefix"
    "-DPKG_CONFIG_EXECUTABLE=$pkgconf"
    "-DTUNEFRAME_GOLDEN_DIR=$golden")
echo "${configure[*]}"
(cd "$repo" && "${configure[@]}") >"$out/configure.log" 2>&1 || {
    tail -n 30 "$out/configure.log" >&2
    missing "a configured build (cmake failed; log: $out/configure.log)" \
        "read the lines above: a package CMake could not find names itself there"
}
grep -q "TUNEFRAME_TORCH_CUDA" "$build/build.ninja" || [[ $dry_run == 1 ]] ||
    missing "a CUDA build of the engine (TUNEFRAME_TORCH_CUDA is not defined: LibTorch at \
$torch_prefix has no torch_cuda)" "point --torch-prefix at a CUDA LibTorch"

# 4. Build ------------------------------------------------------------------------------------
step "4/6 build"
# The engine and the gpu-labelled test programs only (each test is named after its program;
# ctest lists no command for one not built yet); the fixtures run the engine itself.
targets=$(cd "$build" && ctest -N -L gpu --show-only=json-v1 | "$python" -c '
import json, os, sys
for test in json.load(sys.stdin)["tests"]:
    command = test.get("command")
    if not command or os.path.basename(command[0]) == test["name"]:
        print(test["name"])')
[[ -n $targets ]] || missing "gpu-labelled tests in the build" "check tests/*/CMakeLists.txt"
echo "targets: tuneframe-engine" $targets
cmake --build "$build" -j "$jobs" --target tuneframe-engine $targets >"$out/build.log" 2>&1 || {
    grep -E "error|Error" "$out/build.log" | head -n 20 >&2
    missing "a finished build (log: $out/build.log)" "fix the first compile error above"
}
engine=$build/engine/cli/tuneframe-engine
"$engine" --version

# 5. The gpu tests ----------------------------------------------------------------------------
step "5/6 gpu tests"
if [[ $skip_tests == 1 ]]; then
    echo "skipped (--skip-tests)"
else
    # One at a time: they share the one GPU and some are memory-hungry.
    (cd "$build" && ctest -L gpu --output-on-failure --timeout 1800) 2>&1 |
        tee "$out/ctest-gpu.log" || true
fi

# 6. Timing: ours, then the reference, on the same shape ---------------------------------------
step "6/6 timing"
run_models=$models
rank=64 dtype=bf16
if [[ $dry_run == 1 ]]; then
    # Each family's tiny model instead: tiny (CogVideoX), wan-tiny (Wan 2.1).
    run_models=""
    for model in $models; do
        case "$model" in wan*) tiny=wan-tiny ;; *) tiny=tiny ;; esac
        [[ " $run_models " == *" $tiny "* ]] || run_models="${run_models:+$run_models }$tiny"
    done
    rank=4 dtype=fp32
fi
# Each model's own size; the table's header quotes the first one's.
shapes="{}"
for model in $run_models; do
    shapes=$("$python" -c 'import json, sys
shapes = json.loads(sys.argv[1])
frames, height, width = map(int, sys.argv[3].split("x"))
shapes[sys.argv[2]] = {"frames": frames, "height": height, "width": width}
print(json.dumps(shapes))' "$shapes" "$model" "$(run_size "$model")")
done
IFS=x read -r frames height width <<<"$(run_size "${run_models%% *}")"
"$python" - "$out/run.json" <<EOF
import json, sys
json.dump({
    "mode": "cpu-dry-run" if $dry_run else "gpu",
    "models": "$run_models".split(),
    "steps": $steps,
    "shape": {"frames": $frames, "height": $height, "width": $width, "rank": $rank,
              "checkpointing": True, "dtype": "$dtype"},
    "shapes": json.loads('$shapes'),
    "tests": "skipped" if $skip_tests else "run",
    "allow_skipped_tests": bool($allow_skips),
    "commit": "$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)",
    "source_changes": "$(git -C "$repo" status --porcelain 2>/dev/null | wc -l) changed files",
    "build_dir": "$build", "torch_prefix": "$torch_prefix", "golden": "$golden",
    "ours_command": "tuneframe-engine bench --steps N+1 (the first step is a warm-up)",
    "reference_command": "python3 ref_lora_step.py --steps N (plus its own warm-up)",
}, open(sys.argv[1], "w"), indent=2)
EOF
# Keeps the JSON line a program printed last; the rest stays in the .err file.
last_json_line() { grep -E '^\{' "$1" | tail -n 1 || true; }
run_ours() { # NAME ARGS...: tuneframe-engine ARGS into ours-NAME.*
    local name=$1
    shift
    echo "ours $name: tuneframe-engine $*"
    if timeout 3600 "$engine" "$@" >"$out/ours-$name.out" 2>"$out/ours-$name.err"; then
        last_json_line "$out/ours-$name.out" >"$out/ours-$name.json"
    else
        echo "  failed (exit $?); see $out/ours-$name.err"
    fi
}
run_reference() { # NAME ARGS...: ref_lora_step.py ARGS into ref-NAME.*
    local name=$1
    shift
    echo "reference $name: ref_lora_step.py $*"
    if PYTHONPATH="$diffusers_dir${PYTHONPATH:+:$PYTHONPATH}" timeout 3600 "$python" \
        "$kit/ref_lora_step.py" "$@" >"$out/ref-$name.out" 2>"$out/ref-$name.err"; then
        last_json_line "$out/ref-$name.out" >"$out/ref-$name.json"
    else
        echo "  failed (exit $?); see $out/ref-$name.err"
    fi
}
# Our best setting on the dial: attention kept and the frozen base in fp8 (int8 on the CPU, where
# LibTorch 1.13 has no fp8).
best_quantize=fp8
[[ $dry_run == 1 ]] && best_quantize=int8
for model in $run_models; do
    if [[ $dry_run == 1 ]]; then
        IFS=x read -r f h w <<<"$(run_size "$model")"
        arch=cogvideox-tiny
        [[ $model == wan-tiny ]] && arch=wan2.1-tiny
        ours=(bench --arch "$arch" --frames "$f" --height "$h" --width "$w"
            --rank "$rank" --checkpointing --steps $((steps + 1)) --device cpu --dtype "$dtype")
    else
        ours=(bench --shape "$(bench_shape "$model")" --rank "$rank" --checkpointing
            --steps $((steps + 1)) --device cuda --dtype "$dtype")
    fi
    run_ours "$model" "${ours[@]}"
    run_ours "$model-best" "${ours[@]}" --keep-attention --quantize "$best_quantize"
    if [[ $dry_run == 1 ]]; then
        for name in "$model" "$model-compile"; do
            echo "ref_lora_step.py runs on CUDA only; not run in a cpu dry run" \
                >"$out/ref-$name.skipped"
        done
        continue
    fi
    # The reference eager, then under torch.compile: the fastest a Python user has.
    reference=(--model "$model" --steps "$steps" --rank "$rank")
    run_reference "$model" "${reference[@]}"
    run_reference "$model-compile" "${reference[@]}" --compile
done

# Block swap (issue 37): the 14B LoRA as a 24 GB card trains it at 81 x 480 x 832 (fp8 base,
# rank 32, the 24 GB preset's 24 of 40 blocks swapped and the checkpointed activations on the
# host, the CUDA allocator capped at 24 GiB; the estimate says 19.5 GiB), beside the same run with
# every block on the uncapped GPU; the dry run does the same with the tiny Wan model on the CPU.
swap_blocks=24
swap_pair() { # NAME ARGS...: ours-NAME-fp8 (no swap) and ours-NAME-swap
    local name=$1
    shift
    for run in fp8 swap; do
        local extra=()
        [[ $run == swap ]] && extra=("${swap_extra[@]}")
        echo "ours $name-$run: tuneframe-engine $* ${extra[*]}"
        if timeout 3600 "$engine" "$@" "${extra[@]}" >"$out/ours-$name-$run.out" \
            2>"$out/ours-$name-$run.err"; then
            last_json_line "$out/ours-$name-$run.out" >"$out/ours-$name-$run.json"
        else
            echo "  failed (exit $?); see $out/ours-$name-$run.err"
        fi
    done
}
if [[ $dry_run == 0 && " $models " == *" wan2.1-14b "* ]]; then
    fraction=$("$python" -c 'import sys; print(min(1.0, 24 * 2**30 / int(sys.argv[1])))' \
        "$(fact total_memory)")
    swap_extra=(--blocks-to-swap "$swap_blocks" --offload-activations --memory-fraction "$fraction")
    swap_pair wan2.1-14b bench --shape wan2.1-14b-81x480x832 --rank 32 --quantize fp8 \
        --checkpointing --steps $((steps + 1)) --device cuda --dtype bf16
elif [[ $dry_run == 1 && " $run_models " == *" wan-tiny "* ]]; then
    swap_extra=(--blocks-to-swap 1 --offload-activations)
    IFS=x read -r f h w <<<"$(run_size wan-tiny)"
    swap_pair wan-tiny bench --arch wan2.1-tiny --frames "$f" --height "$h" --width "$w" \
        --rank 4 --quantize int8 --checkpointing --steps $((steps + 1)) --device cpu --dtype fp32
fi

[[ $dry_run == 1 ]] || for model in $run_models; do
    echo "$model: $(bench_shape "$model") (ours), ref_lora_step.py --model $model"
done
"$python" "$here/report.py" "$out"
