#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Install test: `cmake --install` the build into a temporary prefix, then
#   1. build tests/install/consumer.c as C99 against <prefix>/include only (no CUDA include dir, so the
#      headers' fallback cudaStream_t is used), link with -L<prefix>/lib -lcudnn, run it;
#   2. check the exported dynamic symbols: exactly the 263 API names (tools/check_headers.py --list) and the
#      freednn* additions of include/freednn.h, each
#      in version node libcudnn.so.8, plus the version node symbol itself, and nothing else;
#   3. build tests/install/cmake_consumer with find_package(freednn) / CUDNN::cudnn, run it;
#   4. `pkg-config --cflags --libs cudnn` through PKG_CONFIG_PATH, build and run with its flags.
# Usage: run_install_test.sh --build DIR [--source DIR] [--cc CC] [--cmake CMAKE] [--python PY] [--keep]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build_dir=""
cc=${CC:-cc}
cmake_cmd=cmake
python=python3
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build_dir=$2; shift 2 ;;
    --source) source_dir=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --cmake) cmake_cmd=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$build_dir" ] || { echo "--build DIR is required" >&2; exit 2; }
build_dir=$(cd "$build_dir" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/freednn-install.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
prefix="$work/prefix"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo; echo "== $*"; }

export FREEDNN_BACKEND=cpu

# Sanitizer builds need the runtime in the consumer too.
extra_flags=()
if grep -q '^FREEDNN_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  extra_flags=(-fsanitize=address,undefined)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi

step "cmake --install $build_dir --prefix $prefix"
"$cmake_cmd" --install "$build_dir" --prefix "$prefix" > "$work/install.log"
libdir=""
for d in lib lib64 lib/x86_64-linux-gnu; do
  if [ -e "$prefix/$d/libcudnn.so" ]; then libdir="$prefix/$d"; break; fi
done
[ -n "$libdir" ] || { cat "$work/install.log"; echo "FAIL: no libcudnn.so under $prefix" >&2; exit 1; }
for f in libcudnn.so libcudnn.so.8 libcudnn.so.8.2.0 libcudnn_static.a pkgconfig/cudnn.pc \
         cmake/freednn/freednnConfig.cmake cmake/freednn/freednnConfigVersion.cmake; do
  [ -e "$libdir/$f" ] || fail "missing $libdir/$f"
done
for h in cudnn.h cudnn_version.h cudnn_ops_infer.h cudnn_ops_train.h cudnn_cnn_infer.h cudnn_cnn_train.h \
         cudnn_adv_infer.h cudnn_adv_train.h cudnn_backend.h freednn.h; do
  [ -f "$prefix/include/$h" ] || fail "missing $prefix/include/$h"
done
[ "$(readlink "$libdir/libcudnn.so")" = libcudnn.so.8 ] || fail "libcudnn.so does not link to libcudnn.so.8"
soname=$(readelf -d "$libdir/libcudnn.so.8.2.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libcudnn.so.8 ] || fail "soname is '$soname', expected libcudnn.so.8"

step "C99 consumer against $prefix/include only"
"$cc" -std=c99 -Wall -Wextra -pedantic -Werror "${extra_flags[@]}" -I"$prefix/include" \
  "$here/consumer.c" -o "$work/consumer" -L"$libdir" -lcudnn -Wl,-rpath,"$libdir"
out=$("$work/consumer") || fail "consumer exited with $?"
echo "$out"
echo "$out" | grep -qx 'cudnnGetVersion=8200' || fail "consumer printed '$out'"
# It must really run against the installed copy. grep reads all of ldd's output (grep -q would stop at the first
# match, and ldd writing on gets SIGPIPE: a failure under pipefail, seen on a loaded machine).
if command -v ldd > /dev/null; then
  ldd "$work/consumer" | grep "$libdir/libcudnn.so.8" > /dev/null || fail "consumer does not load $libdir/libcudnn.so.8"
fi

step "exported symbols of libcudnn.so.8"
"$python" "$source_dir/tools/check_headers.py" --list | sort > "$work/expected"
nexp=$(wc -l < "$work/expected")
[ "$nexp" = 263 ] || fail "check_headers.py --list gave $nexp names, expected 263"
lib="$libdir/libcudnn.so.8"
# nm: names only (strip @@version when nm prints it).
nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | sort -u > "$work/nm_names"
# objdump -T: "<addr> <flags> <section> <size> <version> <name>" for defined symbols.
objdump -T "$lib" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ {print $(NF-1), $NF}' | sort -u > "$work/objdump"
printf 'libcudnn.so.8\n' > "$work/node"
# freednn's own additions (include/freednn.h): every freednn* function the header declares.
grep -o 'freednn[A-Z][A-Za-z0-9]*(' "$source_dir/include/freednn.h" | tr -d '(' > "$work/ext"
sort -u "$work/expected" "$work/node" "$work/ext" > "$work/allowed"
if ! diff -u "$work/allowed" "$work/nm_names" > "$work/nm.diff"; then
  fail "nm -D --defined-only differs from the 263 API names + freednn.h + the version node symbol (- missing, + extra):"
  grep '^[-+][^-+]' "$work/nm.diff" | head -40 >&2
fi
bad_version=$(awk '$1 != "libcudnn.so.8" {print}' "$work/objdump")
[ -z "$bad_version" ] || { fail "symbols outside version node libcudnn.so.8:"; echo "$bad_version" | head -20 >&2; }
nobj=$(awk '$2 ~ /^cudnn/' "$work/objdump" | wc -l)
[ "$nobj" = 263 ] || fail "objdump -T lists $nobj cudnn* symbols, expected 263"
# readelf -V: exactly one version definition besides the file's base entry.
vdefs=$(readelf -V "$lib" | sed -n '/Version definition section/,/Version needs section/p' | grep -o 'Name: [^ ]*' |
        awk '{print $2}' | sort | uniq -c | awk '{print $2":"$1}' | tr '\n' ' ')
case "$vdefs" in
  "libcudnn.so.8:2 ") ;;  # the BASE entry (the soname) and the node
  *) fail "readelf -V version definitions: '$vdefs' (expected only libcudnn.so.8)" ;;
esac
echo "$(wc -l < "$work/nm_names") defined dynamic symbols; version definitions: $vdefs"

step "CMake consumer (find_package(freednn), CUDNN::cudnn)"
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
if "$cmake_cmd" -S "$here/cmake_consumer" -B "$work/cmake_consumer" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="${extra_flags[*]}" -DCMAKE_EXE_LINKER_FLAGS="${extra_flags[*]}" \
     -DCONSUMER_SOURCE="$here/consumer.c" > "$work/cmake_consumer.log" 2>&1 &&
   "$cmake_cmd" --build "$work/cmake_consumer" >> "$work/cmake_consumer.log" 2>&1; then
  out=$("$work/cmake_consumer/consumer") || fail "CMake consumer exited with $?"
  echo "$out"
  echo "$out" | grep -qx 'cudnnGetVersion=8200' || fail "CMake consumer printed '$out'"
  out=$("$work/cmake_consumer/consumer_static") || fail "CMake consumer (static) exited with $?"
  echo "$out" | grep -qx 'cudnnGetVersion=8200' || fail "CMake consumer (static) printed '$out'"
else
  cat "$work/cmake_consumer.log" >&2
  fail "CMake consumer did not configure/build"
fi

step "pkg-config --cflags --libs cudnn"
if command -v pkg-config > /dev/null; then
  flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs cudnn) || fail "pkg-config failed"
  echo "$flags"
  # The .pc file is relocatable (${pcfiledir}/..): compare the directories it names after resolving them.
  inc_ok=0 lib_ok=0
  for f in $flags; do
    case "$f" in
      -I*) [ "$(realpath -m "${f#-I}")" = "$(realpath "$prefix/include")" ] && inc_ok=1 ;;
      -L*) [ "$(realpath -m "${f#-L}")" = "$(realpath "$libdir")" ] && lib_ok=1 ;;
    esac
  done
  [ "$inc_ok" = 1 ] || fail "pkg-config --cflags does not name $prefix/include"
  [ "$lib_ok" = 1 ] || fail "pkg-config --libs does not name $libdir"
  pcver=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --modversion cudnn)
  [ "$pcver" = 8.2.0 ] || fail "pkg-config --modversion is '$pcver'"
  # shellcheck disable=SC2086
  "$cc" -std=c99 "${extra_flags[@]}" "$here/consumer.c" -o "$work/pc_consumer" $flags -Wl,-rpath,"$libdir" ||
    fail "build with pkg-config flags failed"
  [ ! -x "$work/pc_consumer" ] || "$work/pc_consumer" > /dev/null || fail "pkg-config consumer failed"
else
  echo "pkg-config not found; skipped"
fi

echo
if [ "$failures" -ne 0 ]; then
  echo "install test: $failures failure(s)"
  exit 1
fi
echo "install test: OK"
