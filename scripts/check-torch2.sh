#!/usr/bin/env bash
# The LibTorch 2.x check CI runs after the README's tests, without a GPU: in a Debian 13 root
# (debootstrap), build the headless engine and its tests on `libtorch-dev` 2.6 (GCC 14, C++20)
# and run them, then compile the engine and test files whose text CUDA changes (C++17, without
# the precompiled header; LibTorch targets in the unity batches the build made) against the
# headers of Debian 13's `libtorch-cuda-dev` 2.6 with TUNEFRAME_TORCH_CUDA, USE_C10D_NCCL and
# TUNEFRAME_CUDA_KERNELS, and compile the engine's own CUDA kernels (every engine/**/*.cu) with nvcc
# for sm_80 and sm_90 (scripts/compile-cuda-kernels.sh). Prints `torch2 PART: N s` for each part.
#
#   scripts/check-torch2.sh [PART...]   PART: root build tests syntax kernels (all five by default)
#
# Environment:
#   TUNEFRAME_TRIXIE_ROOT  the Debian 13 root, kept between local runs
#                          (default /var/cache/tuneframe/trixie-root; rebuilt fresh when CI=true)
#   TUNEFRAME_DEBIAN_MIRROR  default: the Debian mirror this machine's apt uses
#   TUNEFRAME_CUDA_HOME    CUDA toolkit whose headers the syntax pass and whose nvcc the kernels
#                          part use (default /usr/local/cuda; without one, Debian 13's CUDA
#                          headers are unpacked and its non-free nvidia-cuda-toolkit installed in
#                          the root)
#   TUNEFRAME_TORCH2_STD   language standards of the syntax pass (default c++17; "c++17 c++20"
#                          for both, at twice the time)
#   TUNEFRAME_TORCH2_ONLY  syntax pass only on files matching this regular expression
#   TUNEFRAME_TORCH2_ALL   1: syntax pass on every engine and test file
# Needs root (debootstrap, chroot, bind mounts). The build folder is build-torch2/.
# shellcheck disable=SC2317 # functions run through `timed`
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"

# The script runs as the first process of its own mount and PID namespaces: its mounts are never
# visible to the rest of the machine, and when it ends, even killed, the kernel ends every process
# it started and drops every mount.
namespaces=(unshare --mount --propagation private --pid --fork --kill-child)
if [[ -z "${TUNEFRAME_TORCH2_NAMESPACE:-}" ]] && "${namespaces[@]}" true 2>/dev/null; then
    TUNEFRAME_TORCH2_NAMESPACE=1 exec "${namespaces[@]}" bash "$script" "$@"
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "error: $0 needs root (debootstrap, chroot and bind mounts); run it with sudo" >&2
    exit 1
fi

parts=("$@")
((${#parts[@]})) || parts=(root build tests syntax kernels)
wants() {
    local p
    for p in "${parts[@]}"; do [[ "$p" == "$1" ]] && return 0; done
    return 1
}

root=${TUNEFRAME_TRIXIE_ROOT:-/var/cache/tuneframe/trixie-root}
cuda_home=${TUNEFRAME_CUDA_HOME:-/usr/local/cuda}
standards=${TUNEFRAME_TORCH2_STD:-c++17}
only=${TUNEFRAME_TORCH2_ONLY:-}
jobs=$(nproc)
build_dir="$repo/build-torch2"
shared=$(cd "$repo/.." && pwd)/shared

# What the root holds; a cached root made from another list is rebuilt.
root_packages=(
    g++ cmake ninja-build pkg-config jq
    libtorch-dev libopenblas0-pthread libgloo-dev
    nlohmann-json3-dev libsentencepiece-dev libssl-dev libgtest-dev libgmock-dev
    libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
    libprotobuf-dev protobuf-compiler libpng-dev python3-protobuf
)
# libtorch-cuda-dev conflicts with libtorch-dev and pulls nvidia-cudnn, whose installer
# downloads cuDNN from NVIDIA; its headers, and those of the Gloo it was built with, are
# unpacked into a prefix of their own instead.
torch_cuda_packages=(libtorch-cuda-dev libgloo-cuda-dev)
torch_cuda_prefix=/opt/torch-cuda
cuda_prefix=/opt/cuda
debian_cuda_packages=(nvidia-cuda-dev libnccl-dev libcu++-dev)

debian_mirror() {
    if [[ -n "${TUNEFRAME_DEBIAN_MIRROR:-}" ]]; then
        echo "$TUNEFRAME_DEBIAN_MIRROR"
        return
    fi
    local uri
    # shellcheck disable=SC2016 # apt's own $(...) syntax
    uri=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
        grep -E '/debian/?$' | head -n 1 || true)
    echo "${uri:-http://deb.debian.org/debian/}"
}

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
    done
    mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bind SOURCE TARGET [ro]
bind() {
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounted+=("$2")
    mount --make-private "$2"
    if [[ "${3:-}" == ro ]]; then
        mount -o remount,bind,ro "$2"
    fi
}

mount_root() {
    mkdir -p "$root/proc"
    mount -t proc proc "$root/proc"
    mounted+=("$root/proc")
    bind /dev "$root/dev"
    bind "$repo" "$root$repo"
    if [[ -d "$shared" ]]; then
        bind "$shared" "$root$shared" ro
    fi
    if [[ -d "$cuda_home/include" ]]; then
        bind "$(readlink -f "$cuda_home/include")" "$root$cuda_prefix/host-include" ro
    fi
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        CI="${CI:-}" DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "$1"
}

refuse_if_mounted() {
    if grep -q " $1[/ ]" /proc/self/mountinfo; then
        echo "error: something is mounted under $1; unmount it first" >&2
        exit 1
    fi
}

make_root() {
    local recipe ready="$root/.tuneframe-root"
    recipe="trixie ${root_packages[*]} | ${torch_cuda_packages[*]} | $(debian_mirror)"
    if [[ "${CI:-}" != true && -f "$ready" && "$(cat "$ready")" == "$recipe" ]]; then
        echo "torch2: reusing the Debian 13 root in $root" >&2
        return
    fi
    refuse_if_mounted "$root"
    rm -rf "$root"
    mkdir -p "$(dirname "$root")"

    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    if ! command -v debootstrap >/dev/null; then
        apt-get install -y -q --no-install-recommends debootstrap
    fi
    debootstrap --variant=minbase --components=main,contrib,non-free trixie "$root" "$(debian_mirror)"

    mount_root
    in_root "apt-get update -q && apt-get install -y -q --no-install-recommends ${root_packages[*]}"
    in_root "
        mkdir -p /var/tmp/torch-cuda-debs && cd /var/tmp/torch-cuda-debs
        apt-get -o APT::Sandbox::User=root download ${torch_cuda_packages[*]}
        for deb in *.deb; do dpkg -x \"\$deb\" $torch_cuda_prefix; done
        rm -rf /var/tmp/torch-cuda-debs
        apt-get clean"
    cleanup
    echo "$recipe" >"$ready"
}

# timed PART FUNCTION: runs FUNCTION with errexit in force (a `||` would switch it off inside)
# and in the background, so that a signal ends the script at once instead of after the part.
timed() {
    local part=$1 started=$SECONDS status=0
    shift
    (
        mounted=()
        trap cleanup EXIT
        set -e
        "$@"
    ) &
    wait $! || status=$?
    echo "torch2 $part: $((SECONDS - started)) s"
    return $status
}

# C++20 here, while the Debian 12 build and the syntax pass use C++17: every file is then compiled
# in both standards at no extra cost.
build() {
    in_root "
        cd '$repo'
        cmake --preset headless -B '$build_dir' -DCMAKE_CXX_STANDARD=20
        cmake --build '$build_dir' -j $jobs -- -k 0"
}

run_tests() {
    in_root "ctest --test-dir '$build_dir' --output-on-failure -j $jobs --no-tests=error"
}

# Debian's CUDA headers serve where the host has no toolkit (a 1 GB download, once per root).
# Only usr/include/ is unpacked: the static libraries beside it are what makes them large.
unpack_debian_cuda_headers() {
    [[ -d "$root$cuda_prefix/debian-include" ]] && return
    in_root "
        rm -rf /var/tmp/cuda-debs && mkdir -p /var/tmp/cuda-debs/x && cd /var/tmp/cuda-debs
        apt-get -o APT::Sandbox::User=root download ${debian_cuda_packages[*]}
        for deb in *.deb; do
            dpkg-deb --fsys-tarfile \"\$deb\" | tar -x -C x --wildcards './usr/include/*'
        done
        mkdir -p $cuda_prefix && mv x/usr/include $cuda_prefix/debian-include
        rm -rf /var/tmp/cuda-debs"
}

# Writes, as a JSON list, the compile_commands.json files the syntax pass compiles: by default those
# whose text changes with CUDA LibTorch, because they, or a project header they include, use
# TUNEFRAME_TORCH_CUDA, TUNEFRAME_CUDA_KERNELS or USE_C10D_NCCL or include a CUDA, NCCL or c10d
# header (a unity batch
# counts when one of its files does). Every other file sees the same declarations in Debian 13's
# CPU and CUDA LibTorch 2.6, and the build part has compiled it on the first already.
# TUNEFRAME_TORCH2_ALL=1 takes every file.
cuda_syntax_units() {
    python3 - "$repo" "$build_dir/compile_commands.json" "${TUNEFRAME_TORCH2_ALL:-0}" <<'PY'
import json, pathlib, re, sys

repo, commands, every = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
marker = re.compile(r"TUNEFRAME_TORCH_CUDA|TUNEFRAME_CUDA_KERNELS|USE_C10D_NCCL|"
                    r"#\s*include\s*<(?:c10/cuda|ATen/cuda|cuda|nccl|torch/csrc/distributed)")
include = re.compile(r'#\s*include\s*"([^"]+)"')
known = {}

def differs(path):
    if path not in known:
        known[path] = False  # an include cycle ends here
        text = path.read_text(errors="replace") if path.is_file() else ""
        known[path] = bool(marker.search(text)) or any(
            differs(repo / name) for name in include.findall(text) if (repo / name).is_file())
    return known[path]

units = []
for command in json.load(open(commands)):
    unit = pathlib.Path(command["file"])
    sources = ([pathlib.Path(name) for name in include.findall(unit.read_text())]
               if "/Unity/" in command["file"] else [unit])
    if every or any(differs(source) for source in sources):
        units.append(command["file"])
print(json.dumps(units))
PY
}

syntax_check() {
    [[ -f "$cuda_home/include/cuda_runtime_api.h" ]] || unpack_debian_cuda_headers
    cuda_syntax_units >"$build_dir/cuda-syntax-units.json"
    in_root "$(
        cat <<EOF
build_dir='$build_dir' repo='$repo' jobs=$jobs standards='$standards' only='$only'
torch_cuda='$torch_cuda_prefix/usr/include' cuda='$cuda_prefix'
units='$build_dir/cuda-syntax-units.json'
$(declare -f syntax_check_in_root)
syntax_check_in_root
EOF
    )"
}

# Runs inside the root. Every engine and test file is compiled as the CPU build compiled it (a
# LibTorch target's files within its unity batches), less its precompiled header and its output,
# with the CUDA LibTorch's headers first on the path.
# shellcheck disable=SC2154 # cuda, torch_cuda and units come from syntax_check's preamble
syntax_check_in_root() {
    local cuda_include=$cuda/host-include
    [[ -f $cuda_include/cuda_runtime_api.h ]] || cuda_include=$cuda/debian-include
    local out=$build_dir/cuda-syntax
    rm -rf "$out" && mkdir -p "$out"

    # GCC's garbage collector first runs at 1 GB instead of 128 MB: about a tenth less time for
    # at most 1.5 GB a compiler.
    local gc="--param ggc-min-expand=100 --param ggc-min-heapsize=1048576"
    local std
    for std in $standards; do
        jq -r --arg repo "$repo/" --arg build "$build_dir" --arg std "$std" --arg torch "$torch_cuda" \
            --arg cuda "$cuda_include" --arg only "$only" --arg gc "$gc" --slurpfile units "$units" '
            .[] | select(.file | startswith($repo + "engine/") or startswith($repo + "tests/")
                or test("^" + $build + "/(engine|tests)/.*/Unity/unity_[0-9]+_cxx[.]cxx$"))
            | select(.file | IN($units[0][]))
            | select(.file | test($only))
            | (.command
                | gsub(" -o [^ ]+"; "")
                | gsub(" -MT [^ ]+| -MF [^ ]+| -MD"; "")
                | gsub(" -include [^ ]*cmake_pch[^ ]*| -Winvalid-pch"; "")
                | gsub(" -O[0-3s]| -g[0-9]?(?= )"; "")
                | gsub(" -std=[^ ]+"; "")
                | gsub(" -isystem [^ ]+/torch/csrc/api/include"; "")
                | if test("torch/csrc/api/include") then
                    error("a CPU LibTorch include flag is left in: " + .) else . end
                | sub(" -c "; " -fsyntax-only -O0 -std=\($std) \($gc) -DTUNEFRAME_TORCH_CUDA=1"
                    + " -DTUNEFRAME_CUDA_KERNELS=1 -DUSE_C10D_NCCL"
                    + " -isystem \($torch)/torch/csrc/api/include"
                    + " -isystem \($torch) -isystem \($cuda) -c ")) as $command
            | "\(.directory | @sh) \(.file | @sh) \($std | @sh) \($command | @sh)"' \
            "$build_dir/compile_commands.json"
    done >"$out/commands"
    local count
    count=$(wc -l <"$out/commands")
    ((count > 0)) || { echo "error: no engine or test files in compile_commands.json" >&2; return 1; }
    echo "torch2: syntax pass, $count compilations ($standards), CUDA headers from $cuda_include"

    export out
    # Each failure goes to a file of its own so that parallel compilers' messages never mix.
    # shellcheck disable=SC2016
    tr '\n' '\0' <"$out/commands" | xargs -0 -P "$jobs" -n 1 bash -c '
        eval "set -- $1"
        log="$out/$(echo "$2 $3" | md5sum | cut -c1-16).log"
        if ! (cd "$1" && eval "$4") >"$log" 2>&1; then
            { echo "FAILED ($3): $2"; cat "$log"; } >"$log.failed"
        fi' _

    local failed=("$out"/*.failed)
    if [[ -e "${failed[0]}" ]]; then
        cat "${failed[@]}"
        echo "torch2: ${#failed[@]} of $count compilations failed:"
        grep -h '^FAILED' "${failed[@]}" | sort
        return 1
    fi
}

# The engine's CUDA kernels use the CUDA toolkit alone: the host's nvcc at TUNEFRAME_CUDA_HOME
# compiles them where there is one, else Debian 13's non-free nvidia-cuda-toolkit, installed in the
# root at its first use (it wants g++-13, which nvidia-cuda-toolkit-gcc names cuda-g++).
compile_kernels() {
    local out=$build_dir/cuda-kernels
    if [[ -x $cuda_home/bin/nvcc ]]; then
        "$repo/scripts/compile-cuda-kernels.sh" "$cuda_home/bin/nvcc" "$out"
        return
    fi
    in_root "
        if ! command -v nvcc >/dev/null; then
            apt-get update -q
            apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit nvidia-cuda-toolkit-gcc
        fi
        TUNEFRAME_NVCC_FLAGS='-ccbin cuda-g++' '$repo/scripts/compile-cuda-kernels.sh' \
            \"\$(command -v nvcc)\" '$out'"
}

# run PART FUNCTION: sets `last` to its status. Never call it in a condition: errexit would be
# off inside FUNCTION.
run() {
    set +e
    timed "$@"
    last=$?
    set -e
}

# One run at a time per root: a second would rebuild or unmount it under the first.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
if ! flock -n 9; then
    echo "torch2: waiting for another run using $root" >&2
    flock 9
fi

status=0
if wants root; then
    run root make_root
    ((last == 0)) || exit 1
fi
if [[ ! -f "$root/.tuneframe-root" ]]; then
    echo "error: no Debian 13 root in $root; run the root part first" >&2
    exit 1
fi
mount_root

built=1
if wants build; then
    run build build
    ((last == 0)) || { built=0 status=1; }
fi
if wants tests; then
    if ((built)); then
        run tests run_tests
        ((last == 0)) || status=1
    else
        echo "torch2 tests: skipped, the build failed"
    fi
fi
if wants syntax; then
    run cuda-syntax syntax_check
    ((last == 0)) || status=1
fi
if wants kernels; then
    run cuda-kernels compile_kernels
    ((last == 0)) || status=1
fi
exit $status
