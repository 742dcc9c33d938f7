// The peer harness (bench/peer/): kops::cuda::eval and KeOps's own generated
// kernels on the same device buffers, in one process. This header is what its
// three kinds of translation unit share:
//
//   kops_case.cu     one per formula of bench/sass/cases.sh (PEER_CASE_* defines):
//                    registers a kops_case, whose runners call kops::cuda::eval
//                    (float and double, precision fast and accurate, any scheme)
//   keops_kernel.cu  one per (formula, element type): includes the CUDA source
//                    keopscore 2.3 generated for it (keops_peer_gen.py, at build
//                    time), compiled as pykeops compiles it (-use_fast_math), and
//                    registers a keops_kernel<T>: the kernel and its launch facts
//   peer_main.cu     data, launches, timing, references, the table and the CSV
//
// The same sources build against kops::cuda (a GPU: tools/gpu_check.sh) and
// against kops::cuda_emulated (ctest label peer_gpu, every CI run).
#pragma once

#include <kops/cuda.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace peer {

// attention: sumsoftmaxweight_reduction(g <x_i, y_j>, v_j) (D-wide values v).
enum class kind { gauss, gauss_grad, argkmin, logsumexp, attention };

// The arguments of one call, device pointers in KeOps's variable order
// (which is also kops's: bench/sass/keops_gen.py's aliases): x, y, b, g, e
// (attention: x, y, v, g).
template <class T>
struct call {
  std::int64_t rows = 0, cols = 0;
  void* out = nullptr;  // T*, or std::int64_t* for kops's argkmin
  const T* in[5] = {};
  kops::cuda::options opts{};
};

template <class T>
using kops_runner = void (*)(const call<T>&);

// A tuned variant of a case's kernels (backends/cuda/kernel_traits.hpp:
// tuning<R, B>), fast policy, through kops::cuda::detail::eval_tuned: timed
// beside the default by kops_peer --variants.
struct kops_variant {
  std::string name;  // "rRbB", or "tensor_cores"
  kops_runner<float> f_fast = nullptr;
  kops_runner<double> d_fast = nullptr;
  double tol_scale = 1;  // its rows' tolerance, in units of the case's (the tensor cores: TF32)
};

// One formula of the set, on the kops side.
struct kops_case {
  std::string name;  // bench/sass/cases.sh's case name
  int order = 0;     // its position in cases.sh
  kind k = kind::gauss;
  int dim = 3;         // D of x and y
  int kops_nargs = 0;  // arguments of kops's eval (x, y, b, g, e: a prefix)
  kops_runner<float> f_fast = nullptr, f_accurate = nullptr;
  kops_runner<double> d_fast = nullptr, d_accurate = nullptr;
  std::vector<kops_variant> variants;  // compiled for gauss3 (kops_case.cu)
};

// KeOps's generated kernel: GpuConv1DOnDevice(nx, ny, out, arg_ptrs), renamed.
template <class T>
using keops_fn = void (*)(signed long int, signed long int, T*, T**);

template <class T>
struct keops_kernel {
  keops_fn<T> fn = nullptr;
  std::string missing;  // why there is no kernel (keopscore could not be obtained), else empty
  long dimy = 0;        // T values per j in shared memory (keopscore's DIMY)
  int chunk_mode = 0;   // 0: GpuReduc1D; 1: GpuReduc1D_chunks; 2: ..._finalchunks
  int nargs = 0;        // entries of the argument-pointer table
  int dimout = 0;       // T values per row of the output
  int block_generated = 0;  // the block keops_gen.py computed for a 48 KiB block
  std::string map_reduce;
};

struct registry {
  std::map<std::string, kops_case> cases;
  std::map<std::string, keops_kernel<float>> keops_f;
  std::map<std::string, keops_kernel<double>> keops_d;
};
inline registry& reg() {
  static registry r;
  return r;
}

// Static registration, one object per translation unit.
struct add_case {
  explicit add_case(const kops_case& c) { reg().cases[c.name] = c; }
};
struct add_keops {
  add_keops(const std::string& name, const keops_kernel<float>& k) { reg().keops_f[name] = k; }
  add_keops(const std::string& name, const keops_kernel<double>& k) { reg().keops_d[name] = k; }
};

} // namespace peer
