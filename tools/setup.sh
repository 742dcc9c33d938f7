#!/usr/bin/env bash
# Install what kops needs to build and test (Debian/Ubuntu), idempotently:
# only missing packages are installed, apt-get update only runs when something
# is missing. CUDA is never installed, only detected.
set -euo pipefail

# python3-venv, python3-dev: the conformance test (tests/conformance) makes a venv
# with pykeops 2.3, which compiles its kernels against the Python headers.
# doxygen: the API reference (tools/docs.sh). libopenmpi-dev, openmpi-bin: the
# MPI example and kops/mpi.hpp's tests (mpirun on one machine).
# python3-matplotlib: bench/plot.py (the docs' plots; a ctest keeps it working).
# ccache: the compiler cache every build script puts in front of g++ and nvcc
# (tools/cache.sh; a build without it runs the compilers directly).
PACKAGES=(cmake g++ make ccache libboost1.81-dev catch2 libtrilinos-kokkos-dev python3-numpy python3-venv python3-dev
          doxygen libopenmpi-dev openmpi-bin python3-matplotlib)

log() { echo "[setup] $*"; }

# KOPS_SKIP_SETUP=1: install nothing (a machine without a package registry,
# e.g. the GPU machine of tools/gpu_check.sh, whose image has what it has).
if [ "${KOPS_SKIP_SETUP:-0}" = 1 ]; then
  log "KOPS_SKIP_SETUP=1: no package is installed"
  exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  log "not a Debian-like system (no dpkg/apt-get): install by hand: ${PACKAGES[*]} (or equivalents)"
else
  missing=()
  for p in "${PACKAGES[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      :
    else
      missing+=("$p")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "all packages present: ${PACKAGES[*]}"
  else
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
      if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
      else
        log "missing packages: ${missing[*]}; not root and no sudo: install them by hand" >&2
        exit 1
      fi
    fi
    log "installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -q
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
    log "installed: ${missing[*]}"
  fi
fi

# CUDA: detect only.
nvcc_path="$(command -v nvcc 2>/dev/null || true)"
if [ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc_path=/usr/local/cuda/bin/nvcc
  log "nvcc found at $nvcc_path (not on PATH; tools/*.sh add /usr/local/cuda/bin)"
fi
if [ -n "$nvcc_path" ]; then
  log "CUDA: $("$nvcc_path" --version | grep -o 'release [0-9.]*' || echo "nvcc at $nvcc_path")"
else
  log "CUDA: no nvcc (kops::cuda will not be built; not installed by this script)"
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  log "GPU: $(nvidia-smi -L | head -n 1)"
else
  log "GPU: none (GPU tests are skipped)"
fi
