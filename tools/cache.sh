# Sourced by the build scripts (tools/test.sh, test_kokkos4.sh, sanitize.sh,
# example.sh, gpu_check.sh, bench/): the caches a build shares with every other
# checkout of kops on this machine, kept outside the checkout so that a fresh
# clone (CI's) finds what the work tree compiled.
#
#   KOPS_CACHE_HOME   where the caches live (default ${XDG_CACHE_HOME:-$HOME/.cache}/kops):
#                     ccache/ (the compiler cache), kokkos/ (tools/kokkos4.sh's installs)
#   KOPS_CCACHE=0     no compiler cache (the build runs the compilers as it would without ccache)
#   KOPS_CCACHE_SIZE  the compiler cache's cap (default 12G; ccache evicts the oldest past it)
#   KOPS_COMPILE_TIMES=FILE  log each compile's wall time to FILE (below)
#
# After sourcing: KOPS_CCACHE_ARGS, the cmake arguments that put ccache in
# front of g++ and nvcc (empty without ccache); the same launchers exported as
# CMAKE_<LANG>_COMPILER_LAUNCHER, which CMake reads when a nested project (the
# consumer tests, ctest's compile-fail builds) is configured;
# kops_cache_mark and kops_cache_summary LABEL, which print the hits and misses
# of the compiles between the two.
#
# The settings that let a clone in another folder hit what this one compiled:
# base_dir = the checkout (paths inside it are hashed relative to the build
# folder, so /work/main/build and /tmp/fresh/build look the same), hash_dir off
# (the working directory is not hashed, only with -g would it be), the compiler
# checked by its content (not its mtime: a reinstalled but identical compiler
# still hits). Paths outside the checkout (system headers, the Kokkos install
# under KOPS_CACHE_HOME) stay absolute, the same for every clone.
# shellcheck shell=bash

kops_cache_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${KOPS_CACHE_HOME:-}" ]; then
  if [ -n "${XDG_CACHE_HOME:-}" ]; then
    KOPS_CACHE_HOME="$XDG_CACHE_HOME/kops"
  elif [ -n "${HOME:-}" ] && [ -d "$HOME" ] && [ -w "$HOME" ]; then
    KOPS_CACHE_HOME="$HOME/.cache/kops"
  else
    KOPS_CACHE_HOME="/var/tmp/kops-cache-$(id -u)"
  fi
fi
export KOPS_CACHE_HOME
mkdir -p "$KOPS_CACHE_HOME"

KOPS_CCACHE_ARGS=()
kops_launcher=""
kops_ccache_bin=""
if [ "${KOPS_CCACHE:-1}" != 0 ]; then
  kops_ccache_bin="$(command -v ccache 2>/dev/null || true)"
fi
if [ -n "$kops_ccache_bin" ]; then
  export CCACHE_DIR="$KOPS_CACHE_HOME/ccache"
  export CCACHE_BASEDIR="$kops_cache_root"
  mkdir -p "$CCACHE_DIR"
  # The settings every clone shares, in the cache's own configuration file
  # (so that a rebuild run by hand, without this script, keeps them).
  "$kops_ccache_bin" --set-config=hash_dir=false >/dev/null
  "$kops_ccache_bin" --set-config=compiler_check=content >/dev/null
  "$kops_ccache_bin" --set-config=max_size="${KOPS_CCACHE_SIZE:-12G}" >/dev/null
  # The checkout-specific setting travels with the launcher (env ... ccache):
  # a build folder configured here keeps using this cache and base_dir.
  kops_launcher="env;CCACHE_DIR=$CCACHE_DIR;CCACHE_BASEDIR=$kops_cache_root;$kops_ccache_bin"
fi
# KOPS_COMPILE_TIMES=FILE: every compile of the builds configured from here on
# appends a line to FILE (tools/timed_compile.sh; tools/compile_times.py sums
# the file up by build and by object). What CI's time is made of, measured.
if [ -n "${KOPS_COMPILE_TIMES:-}" ]; then
  kops_launcher="$kops_cache_root/tools/timed_compile.sh;$KOPS_COMPILE_TIMES${kops_launcher:+;$kops_launcher}"
fi
if [ -n "${kops_launcher:-}" ]; then
  KOPS_CCACHE_ARGS=("-DCMAKE_C_COMPILER_LAUNCHER=$kops_launcher" "-DCMAKE_CXX_COMPILER_LAUNCHER=$kops_launcher"
                    "-DCMAKE_CUDA_COMPILER_LAUNCHER=$kops_launcher")
  export CMAKE_C_COMPILER_LAUNCHER="$kops_launcher" CMAKE_CXX_COMPILER_LAUNCHER="$kops_launcher"
  export CMAKE_CUDA_COMPILER_LAUNCHER="$kops_launcher"
fi

# The cache's counters now (kops_cache_summary reports the compiles since).
kops_cache_mark() {
  kops_cache_hits0=0
  kops_cache_misses0=0
  if [ -n "$kops_ccache_bin" ]; then
    read -r kops_cache_hits0 kops_cache_misses0 < <(kops_cache_counts)
  fi
}

# "<hits> <misses>" of the cache so far (its --print-stats counters).
kops_cache_counts() {
  "$kops_ccache_bin" --print-stats 2>/dev/null |
    awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
                $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'
}

# One line: LABEL's compiles since kops_cache_mark, how many the cache served.
kops_cache_summary() {
  if [ -z "$kops_ccache_bin" ]; then
    echo "[ccache] $1: no compiler cache (${KOPS_CCACHE:+KOPS_CCACHE=$KOPS_CCACHE, }ccache not used)"
    return 0
  fi
  local h m dh dm
  read -r h m < <(kops_cache_counts)
  dh=$((h - ${kops_cache_hits0:-0}))
  dm=$((m - ${kops_cache_misses0:-0}))
  if [ $((dh + dm)) -eq 0 ]; then
    echo "[ccache] $1: no cacheable compile"
  else
    echo "[ccache] $1: $dh hits, $dm misses ($((100 * dh / (dh + dm)))% hit rate; cache $CCACHE_DIR)"
  fi
}
