#!/usr/bin/env bash
# One entry point for a fresh machine: install what is missing, build, then run or test.
#   scripts/dev.sh run [PROJECT_DIR]   open the studio (the embedded demo project by default)
#   scripts/dev.sh test                build and run the whole test suite through ctest
#   scripts/dev.sh build               only build
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command=${1:-}
shift || true

build() {
    local started=$SECONDS
    "$root/scripts/install-deps.sh" "$@"
    cmake --preset default
    cmake --build --preset default
    python3 "$root/scripts/check-unity-names.py" "$root/build"
    echo "build: $((SECONDS - started)) s" >&2
}

case "$command" in
run)
    build
    exec "$root/build/ui/tuneframe" "$@"
    ;;
test)
    build
    started=$SECONDS
    status=0
    ctest --preset default || status=$?
    echo "tests: $((SECONDS - started)) s" >&2
    exit $status
    ;;
build)
    build
    ;;
*)
    echo "usage: scripts/dev.sh run [PROJECT_DIR] | test | build" >&2
    exit 2
    ;;
esac
