#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Fetches the CUTLASS / CuTe headers (BSD-3-Clause, NVIDIA) that the CUDA tensor-core convolutions build on, from
# the `nvidia-cutlass` Python wheel, into .deps/cutlass/include (ignored by git), with the wheel's cutlass/util headers
# (tools/util/include) merged in. Header-only: nothing is linked.
# Usage: tools/deps/get_cutlass.sh [dest]   (default: <repo>/.deps/cutlass)
set -euo pipefail
version=4.2.0.0
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/.deps/cutlass}
if [ -f "$dest/include/cutlass/cutlass.h" ] && [ -f "$dest/include/cutlass/util/packed_stride.hpp" ] &&
   [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: "nvidia-cutlass==$version" -d "$tmp"
(cd "$tmp" && python3 -m zipfile -e nvidia_cutlass-*.whl x)
rm -rf "$dest"; mkdir -p "$dest"
cp -r "$tmp/x/cutlass_library/source/include" "$dest/include"
# The CUTLASS 3.x conv collectives include cutlass/util/packed_stride.hpp, which the wheel keeps under tools/util.
cp -r "$tmp/x/cutlass_library/source/tools/util/include/cutlass/util" "$dest/include/cutlass/util"
cp "$tmp"/x/nvidia_cutlass-*.dist-info/licenses/* "$dest/" 2>/dev/null || true
echo "$version" > "$dest/VERSION"
echo "CUTLASS $version headers in $dest/include"
