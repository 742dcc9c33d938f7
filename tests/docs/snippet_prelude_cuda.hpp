// The prelude of the `cuda` code snippets of the Markdown docs (tests/docs/snippets.py,
// conventions in tests/docs/README.md). CUDA snippets are compiled (nvcc), never run, so
// every pointer is null. Each fragment's function starts with KOPS_DOC_PRELUDE:
//
//   std::int64_t M = 100, N = 120;
//   float* px, * py, * pb, * pg, * pe, * out, * gx;       // host pointers, as in the cpp prelude
//   std::int64_t* idx;
//   float* dx, * dy, * db, * dg, * de, * dout;           // device pointers
//   std::int64_t* didx;                                  // device indices
//   cudaStream_t stream;
#pragma once

#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <cuda_runtime.h>

#include <cstdint>

#define KOPS_DOC_PRELUDE                                                                 \
  [[maybe_unused]] std::int64_t M = 100, N = 120;                                        \
  [[maybe_unused]] float *px = nullptr, *py = nullptr, *pb = nullptr, *pg = nullptr,     \
                         *pe = nullptr, *out = nullptr, *gx = nullptr;                   \
  [[maybe_unused]] std::int64_t* idx = nullptr;                                          \
  [[maybe_unused]] float *dx = nullptr, *dy = nullptr, *db = nullptr, *dg = nullptr,     \
                         *de = nullptr, *dout = nullptr;                                 \
  [[maybe_unused]] std::int64_t* didx = nullptr;                                         \
  [[maybe_unused]] cudaStream_t stream = nullptr;
