// Error reporting of the CUDA backend: kops::cuda_error (a kops::error that
// also carries the cudaError_t), and check() / check_launch(), through which
// every CUDA runtime call and kernel launch of the backend goes. A failure is
// thrown as a cuda_error, or, without exceptions, passed to the
// kops::set_error_handler handler and returned as false (core/error.hpp);
// the message names the call (`where`), the step, and CUDA's name and text of
// the error. forget_quiet_failure serves the calls whose failure cannot be
// reported (destructors' frees and device restores).
#pragma once

#include <cstdarg>
#include <string>
#include <cuda_runtime_api.h>

#include <kops/core/error.hpp>

namespace kops {

/// kops::cuda_error: a CUDA call made by kops failed. Its message says what kops
/// was doing and what CUDA answered, e.g.
/// ```text
///   "kops::cuda::eval: launching the GPU_1D kernel: cudaErrorInvalidConfiguration:
///    invalid configuration argument"
/// ```
/// Every CUDA runtime call and every kernel launch of the backend goes through
/// check() / check_launch(); nothing is printed, nothing exits. In a build
/// without exceptions the same message goes to the kops::set_error_handler
/// handler instead (the type then serves only to name the error codes).
class cuda_error : public error {
public:
  /// `doing`: what kops was doing ("kops::cuda::eval: launching the GPU_1D kernel").
  cuda_error(cudaError_t code, const char* doing)
      : error(kops::detail::format("%s: %s: %s", doing, cudaGetErrorName(code), cudaGetErrorString(code)).c_str()),
        code_(code) {}
  /// The same, `doing` as a std::string.
  cuda_error(cudaError_t code, const std::string& doing) : cuda_error(code, doing.c_str()) {}
  /// The CUDA error code (cudaErrorInvalidDevice, cudaErrorMemoryAllocation, ...).
  cudaError_t code() const noexcept { return code_; }

private:
  cudaError_t code_;
};

namespace cuda::detail {

// The failing half of check() / check_launch(), out of line and cold: the
// message (kops' printf-formatted "where: doing" and CUDA's name and text of
// the error) is built only here, not inlined into every call site (host
// compile time), and the checks stay one compare on the normal path.
// The error, now reported, is also cleared from CUDA's "last error" slot (a
// sticky error, after a fault in a kernel, cannot be cleared and stays).
// Throws kops::cuda_error; without exceptions, calls the error handler with
// the message a cuda_error would carry and returns false (the caller returns
// at once: `if (e != cudaSuccess) return report_cuda_error(e, where, ...);`).
#if KOPS_EXCEPTIONS
[[noreturn]]
#endif
__attribute__((noinline, cold, format(printf, 3, 4))) inline bool report_cuda_error(cudaError_t e,
                                                                                   const char* where,
                                                                                   const char* fmt, ...) {
  (void)cudaGetLastError();
  std::va_list ap;
  va_start(ap, fmt);
  const kops::detail::message doing = kops::detail::vformat(fmt, ap);
  va_end(ap);
#if KOPS_EXCEPTIONS
  throw cuda_error(e, kops::detail::format("%s: %s", where, doing.c_str()).c_str());
#else
  // (Through a local: Doxygen 1.9 reads `return kops::detail::fail(...);` here as a declaration.)
  const bool reported =
      kops::detail::fail("%s: %s: %s: %s", where, doing.c_str(), cudaGetErrorName(e), cudaGetErrorString(e));
  return reported;
#endif
}

// True when `e` is cudaSuccess; else throws kops::cuda_error (without
// exceptions: reports it, see report_cuda_error, and returns false). `doing`
// names the step: "allocating the GPU_2D scratch"; the message is
// "where: doing: <CUDA's error>". A step with numbers calls report_cuda_error
// directly with a literal format,
// `if (e != cudaSuccess) return report_cuda_error(e, where, "selecting device %d", d);`,
// so that the compiler checks the format against its arguments. (nodiscard
// only without exceptions: with them the result is always true, and code that
// relies on the throw may ignore it.)
#if !KOPS_EXCEPTIONS
[[nodiscard]]
#endif
inline bool check(cudaError_t e, const char* where, const char* doing) {
  return e == cudaSuccess || report_cuda_error(e, where, "%s", doing);
}

// For a kernel launch (cudaLaunchKernel returns the launch's own error: a bad
// grid, block or shared-memory size, no kernel image for the device). Faults inside a kernel are
// asynchronous: they surface at the next synchronising call (eval_host checks
// it; eval's caller does, as after any CUDA launch). Returns as check() does.
#if !KOPS_EXCEPTIONS
[[nodiscard]]
#endif
inline bool check_launch(cudaError_t e, const char* where, const char* kernel) {
  return e == cudaSuccess || report_cuda_error(e, where, "launching the %s kernel", kernel);
}

// For a CUDA call whose failure cannot be reported: a destructor's free or
// device restore, often run while a kops::cuda_error is already on its way
// (or, without exceptions, while the call returns after reporting one).
// Its error is cleared from the last-error slot, or a caller who catches the
// kops::cuda_error and then checks cudaGetLastError() would find this
// unrelated code there. Only a failure is cleared (the slot then holds this
// call's error: the user's earlier one, if any, was already overwritten), and
// a sticky error cannot be lost this way: after a fault in a kernel every
// later CUDA call returns it again, until the context is destroyed.
inline void forget_quiet_failure(cudaError_t e) noexcept {
  if (e != cudaSuccess) (void)cudaGetLastError();
}

} // namespace cuda::detail
} // namespace kops
