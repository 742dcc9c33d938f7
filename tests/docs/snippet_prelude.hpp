// The prelude of the `cpp` code snippets of the Markdown docs (tests/docs/snippets.py,
// conventions in tests/docs/README.md): what a fragment may use without declaring it.
//
// Each fragment runs in a function that starts with KOPS_DOC_PRELUDE, which declares,
// as locals (so that a fragment may declare the same names again in its own scope):
//
//   std::int64_t M = 100, N = 120;
//   float* px, * py, * pb, * pg, * pe, * out, * gx;   // host buffers, buffer_elements floats each,
//                                                    // uniform in [0, 1) from a fixed seed
//   std::int64_t* idx;                               // buffer_elements indices, 0
//
// The buffers are refilled with the same values before every fragment, so a fragment
// that writes them does not change what the next one reads.
#pragma once

#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <random>
#include <vector>

namespace kops_doc {

// 64 Ki elements: (M or N) rows of dim up to 512 at the default sizes.
inline constexpr std::size_t buffer_elements = 64 * 1024;

struct buffers {
  std::vector<float> px, py, pb, pg, pe, out, gx;
  std::vector<std::int64_t> idx;

  void reset() {
    std::mt19937 rng(20240601u);
    // 24 random bits scaled by 2^-24: exactly representable, in [0, 1) (a float
    // uniform_real_distribution may round up to 1)
    for (std::vector<float>* v : {&px, &py, &pb, &pg, &pe, &out, &gx}) {
      v->resize(buffer_elements);
      for (float& x : *v) x = float(rng() >> 8) * 0x1p-24f;
    }
    idx.assign(buffer_elements, 0);
  }
};

inline buffers& env() {
  static buffers b;
  return b;
}

struct fragment {
  const char* where;  // "docs/usage.md:71": the file and the line of the opening fence
  void (*run)();
};

// The main of a file's fragments: runs each (Kokkos initialised, buffers refilled),
// prints PASS or FAIL with the exception's message; the exit code is 1 if any failed.
inline int run_fragments(int argc, char** argv, std::initializer_list<fragment> fragments) {
  Kokkos::ScopeGuard guard(argc, argv);
  int failed = 0;
  for (const fragment& f : fragments) {
    env().reset();
    try {
      f.run();
      std::printf("PASS %s\n", f.where);
    } catch (const std::exception& e) {
      ++failed;
      std::printf("FAIL %s: exception: %s\n", f.where, e.what());
    } catch (...) {
      ++failed;
      std::printf("FAIL %s: an exception not derived from std::exception\n", f.where);
    }
    std::fflush(stdout);
  }
  std::printf("%d of %zu fragments failed\n", failed, fragments.size());
  return failed ? 1 : 0;
}

}  // namespace kops_doc

#define KOPS_DOC_PRELUDE                                                                        \
  [[maybe_unused]] std::int64_t M = 100, N = 120;                                               \
  [[maybe_unused]] float *px = ::kops_doc::env().px.data(), *py = ::kops_doc::env().py.data(),  \
                         *pb = ::kops_doc::env().pb.data(), *pg = ::kops_doc::env().pg.data(),  \
                         *pe = ::kops_doc::env().pe.data(), *out = ::kops_doc::env().out.data(), \
                         *gx = ::kops_doc::env().gx.data();                                     \
  [[maybe_unused]] std::int64_t* idx = ::kops_doc::env().idx.data();
