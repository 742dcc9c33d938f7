#!/usr/bin/env bash
# Build and install Kokkos 4.6.01 with the OpenMP (or Threads) and Serial host backends from
# the vendored release source, once per machine: the install lives outside the
# checkout (under KOPS_CACHE_HOME, tools/cache.sh), in a folder named by what it
# was built from -- the tarball's SHA-256, the backend, the extra flags and the
# compiler (its version line and binary) -- so every clone on the machine finds
# it, and a change of any of them builds a new one beside it. A later call
# finds the install and does nothing; two calls at once wait for each other (flock).
# Prints the install prefix (the folder to give CMake as -DKokkos_ROOT=...) on
# its last line.
#
#   KOPS_KOKKOS4_DIR      where to build and install (default: $KOPS_CACHE_HOME/kokkos/<key>)
#   KOPS_KOKKOS4_TARBALL  the release source (default: the first of
#                         ../shared/vendor/kokkos-4.6.01.tar.gz beside the
#                         checkout, /work/shared/vendor/kokkos-4.6.01.tar.gz)
#   KOPS_KOKKOS4_FLAGS    extra CMAKE_CXX_FLAGS for Kokkos itself (e.g. a sanitizer)
#   KOPS_KOKKOS4_BACKEND  openmp (default) or threads (Kokkos' std::thread backend)
#
# Exit code 3: the source is not found (nothing built).
#
# Kokkos is built as C++20 (kops's standard), shared libraries, Release, with
# only what kops uses (core; containers, algorithms and simd come with it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

flags="${KOPS_KOKKOS4_FLAGS:-}"
backend="${KOPS_KOKKOS4_BACKEND:-openmp}"
case "$backend" in
  openmp) enable=(-DKokkos_ENABLE_OPENMP=ON) ;;
  threads) enable=(-DKokkos_ENABLE_THREADS=ON) ;;
  *) echo "[kokkos4] error: KOPS_KOKKOS4_BACKEND must be openmp or threads" >&2; exit 1 ;;
esac

tarball="${KOPS_KOKKOS4_TARBALL:-}"
if [ -z "$tarball" ]; then
  for c in "$root/../shared/vendor/kokkos-4.6.01.tar.gz" /work/shared/vendor/kokkos-4.6.01.tar.gz; do
    if [ -f "$c" ]; then tarball="$c"; break; fi
  done
fi
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
  echo "[kokkos4] error: the Kokkos 4.6.01 source is not found (looked for ../shared/vendor/kokkos-4.6.01.tar.gz" \
       "beside the checkout and /work/shared/vendor/); set KOPS_KOKKOS4_TARBALL" >&2
  exit 3
fi

cxx="$(command -v "${CXX:-c++}" 2>/dev/null || command -v g++)"
compiler="$("$cxx" --version 2>/dev/null | head -n 1) $(sha256sum "$(readlink -f "$cxx")" | cut -c1-16)"
want="kokkos-4.6.01 $(sha256sum "$tarball" | cut -c1-16) $backend+serial flags=[$flags] cxx=[$compiler]"
if [ -n "${KOPS_KOKKOS4_DIR:-}" ]; then
  dir="$KOPS_KOKKOS4_DIR"
else
  # shellcheck source=tools/cache.sh
  source "$root/tools/cache.sh"
  dir="$KOPS_CACHE_HOME/kokkos/4.6.01-$backend-$(echo "$want" | sha256sum | cut -c1-12)"
fi
prefix="$dir/install"
stamp="$prefix/.kops-kokkos4-stamp"
mkdir -p "$dir"
# One build at a time per folder: a second caller waits, then finds the install.
exec 9>"$dir/.lock"
flock 9

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "[kokkos4] installed: $prefix ($want)" >&2
  echo "$prefix"
  exit 0
fi

jobs="$(nproc 2>/dev/null || echo 2)"
rm -rf "$dir/src" "$dir/build" "$prefix"
mkdir -p "$dir/src"
echo "[kokkos4] unpack $tarball" >&2
tar -xzf "$tarball" -C "$dir/src" --strip-components=1
echo "[kokkos4] configure ($backend + Serial, C++20)" >&2
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_STANDARD=20 -DBUILD_SHARED_LIBS=ON "-DCMAKE_CXX_FLAGS=$flags" \
  "${enable[@]}" -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DKokkos_ENABLE_BENCHMARKS=OFF \
  -DKokkos_ENABLE_DEPRECATED_CODE_4=OFF >&2
echo "[kokkos4] build (-j$jobs)" >&2
cmake --build "$dir/build" -j "$jobs" >&2
cmake --install "$dir/build" >&2
echo "$want" > "$stamp"
rm -rf "$dir/src" "$dir/build"
echo "[kokkos4] installed: $prefix" >&2
echo "$prefix"
