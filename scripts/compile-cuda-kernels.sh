#!/usr/bin/env bash
# Compiles every CUDA source of the engine (engine/**/*.cu) with nvcc for the GPUs a CUDA build
# targets (sm_80, and sm_90 with its PTX: TUNEFRAME_CUDA_ARCHITECTURES' default), as CMake's
# tuneframe_cuda_kernels target does. The kernels use the CUDA toolkit alone, so no LibTorch is
# needed: a machine without a GPU or a CUDA LibTorch still checks that every kernel compiles.
# scripts/check-torch2.sh runs it as its `kernels` part.
#
#   scripts/compile-cuda-kernels.sh [NVCC [OUT_DIR]]
#
# NVCC: default $CUDACXX, else nvcc on PATH, else /usr/local/cuda/bin/nvcc. OUT_DIR keeps the
# objects and one log per file (default: a temporary folder, removed). TUNEFRAME_NVCC_FLAGS adds
# flags (e.g. -ccbin g++-13 for a toolkit that wants an older host compiler).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvcc=${1:-${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}}
out=${2:-}
if [[ ! -x $nvcc ]]; then
    echo "error: no nvcc at '$nvcc'; give the CUDA toolkit's bin/nvcc as the first argument" >&2
    exit 2
fi
if [[ -z $out ]]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
rm -rf "$out" && mkdir -p "$out"

mapfile -t sources < <(cd "$repo" && find engine -name '*.cu' | sort)
if ((${#sources[@]} == 0)); then
    echo "error: no .cu files under $repo/engine" >&2
    exit 1
fi
read -r -a extra <<<"${TUNEFRAME_NVCC_FLAGS:-}"
# shellcheck disable=SC2054 # -Xcompiler takes a comma-separated list
flags=(-std=c++17 -O3 -I"$repo" -Xcompiler "-Wall,-Wextra"
    -gencode arch=compute_80,code=sm_80 -gencode "arch=compute_90,code=[sm_90,compute_90]"
    "${extra[@]}")
echo "nvcc: $("$nvcc" --version | tail -n 1); ${#sources[@]} files for sm_80 and sm_90"

export nvcc out repo
# xargs puts each source after the flags: the last argument.
# shellcheck disable=SC2016
printf '%s\0' "${sources[@]}" | xargs -0 -P "$(nproc)" -n 1 bash -c '
    source=${*: -1}
    set -- "${@:1:$#-1}"
    name=$(echo "$source" | tr / _)
    if (cd "$repo" && "$nvcc" "$@" -c "$source" -o "$out/$name.o") >"$out/$name.log" 2>&1; then
        echo "  ok: $source"
    else
        { echo "FAILED: $source"; cat "$out/$name.log"; } >"$out/$name.failed"
    fi' _ "${flags[@]}"

failed=("$out"/*.failed)
if [[ -e "${failed[0]}" ]]; then
    cat "${failed[@]}"
    echo "cuda kernels: ${#failed[@]} of ${#sources[@]} files failed to compile"
    exit 1
fi
echo "cuda kernels: ${#sources[@]} files compiled"
