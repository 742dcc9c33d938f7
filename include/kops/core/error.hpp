// How kops reports a run-time failure (bad sizes, null pointers, a backend's
// failed call): kops::error, thrown in a build with exceptions, or, without
// them (KOPS_EXCEPTIONS 0, config.hpp), the message passed to the handler of
// kops::set_error_handler (default: print on stderr and abort) and false
// returned to the caller, which returns at once. The internal side,
// detail::fail / report / format, builds the printf-formatted message in cold,
// out-of-line functions, so that the error paths every call has cost each
// translation unit little compile time (see the comment in detail below).
// Backends derive their own types (kops::cuda_error, backends/cuda/error.hpp).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <kops/config.hpp>

namespace kops {

/// kops::error: every run-time failure kops reports (bad sizes, null pointers,
/// backend failures) is thrown as this type or a type derived from it, in a
/// build with exceptions. Without exceptions (see kops::set_error_handler) the
/// same message goes to the error handler instead.
class error : public std::runtime_error {
public:
  /// `what` is the message what() returns.
  explicit error(const std::string& what) : std::runtime_error(what) {}
  /// The same, from a NUL-terminated message.
  explicit error(const char* what) : std::runtime_error(what) {}
};

/// A function that receives the message of a failure kops would otherwise throw
/// as kops::error (a NUL-terminated string, valid during the call).
using error_handler = void (*)(const char* message);

namespace detail {
// The default handler of a build without exceptions: prints the message on
// stderr and aborts.
[[noreturn]] inline void default_error_handler(const char* message) {
  std::fprintf(stderr, "kops: %s\n", message);
  std::fflush(stderr);
  std::abort();
}
// Read and written with the compilers' __atomic builtins (GCC, Clang, nvcc's
// front ends) rather than std::atomic: <atomic> is the heaviest standard header
// a kops TU would otherwise parse (about 0.13 s of g++ front end, and as much in
// each of nvcc's two EDG passes), for one pointer.
inline error_handler current_error_handler = &default_error_handler;
} // namespace detail

/// Installs `handler` and returns the previous one; nullptr restores the default.
/// The handler is what kops calls in a build without exceptions (-fno-exceptions,
/// or KOPS_NO_EXCEPTIONS defined): bad input then calls it with the message
/// kops::error would carry, and the kops function returns at once without
/// touching its output. The default handler prints the message on stderr and
/// calls std::abort. A handler that returns lets the program go on (the failed
/// call did nothing). With exceptions enabled kops throws and never calls it.
/// Thread-safe; the handler itself may be called from any thread that calls kops.
inline error_handler set_error_handler(error_handler handler) noexcept {
  return __atomic_exchange_n(&detail::current_error_handler, handler ? handler : &detail::default_error_handler,
                             __ATOMIC_ACQ_REL);
}

/// The handler set_error_handler installed (the default one if none was).
inline error_handler get_error_handler() noexcept {
  return __atomic_load_n(&detail::current_error_handler, __ATOMIC_ACQUIRE);
}

namespace detail {

// Error messages are printf-formatted by these cold, out-of-line functions
// rather than assembled with std::string operator+ and std::to_string at each
// throw site: every such concatenation is inlined code that each translation
// unit compiles at -O3 (they were a fifth of a CUDA TU's compile time), and
// a message is built only when something fails. They hold it in a `message`,
// not a std::string: in C++20 libstdc++ declares no extern instantiation of
// std::string, so each of its members a TU calls is compiled there (45
// functions for the error paths every kops call has).

// A formatted message (heap buffer, move-only); empty() until one is set.
class message {
public:
  message() = default;
  message(message&& o) noexcept : p_(o.p_), owned_(o.owned_) {
    o.p_ = nullptr;
    o.owned_ = false;
  }
  message& operator=(message&& o) noexcept {
    message old(static_cast<message&&>(*this));
    p_ = o.p_;
    owned_ = o.owned_;
    o.p_ = nullptr;
    o.owned_ = false;
    return *this;
  }
  message(const message&) = delete;
  message& operator=(const message&) = delete;
  ~message() {
    if (owned_) std::free(p_);
  }
  bool empty() const noexcept { return p_ == nullptr; }
  const char* c_str() const noexcept { return p_ ? p_ : ""; }

  // printf into a new message (a failed format or allocation still gives a
  // non-empty one).
  friend message vformat(const char* fmt, std::va_list ap);

private:
  message(char* p, bool owned) noexcept : p_(p), owned_(owned) {}
  char* p_ = nullptr;
  bool owned_ = false;
};

__attribute__((format(printf, 1, 0))) inline message vformat(const char* fmt, std::va_list ap) {
  std::va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  const std::size_t size = n < 0 ? std::strlen(fmt) + 1 : std::size_t(n) + 1;
  char* p = static_cast<char*>(std::malloc(size));
  if (p != nullptr) {
    if (n < 0) std::memcpy(p, fmt, size);
    else std::vsnprintf(p, size, fmt, again);
  }
  va_end(again);
  if (p == nullptr) return message(const_cast<char*>("kops: out of memory while formatting an error message"), false);
  return message(p, true);
}

// The printf-formatted message.
__attribute__((noinline, cold, format(printf, 1, 2))) inline message format(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  message m = vformat(fmt, ap);
  va_end(ap);
  return m;
}

// Reports a failure whose message is already built: throws kops::error (with
// exceptions), or calls the error handler and returns false (without). Callers
// return at once when it returns: `if (bad) return report(msg);`.
#if KOPS_EXCEPTIONS
[[noreturn]]
#endif
__attribute__((noinline, cold)) inline bool report(const char* message) {
#if KOPS_EXCEPTIONS
  throw error(message);
#else
  get_error_handler()(message);
  return false;
#endif
}
#if KOPS_EXCEPTIONS
[[noreturn]]
#endif
inline bool report(const message& m) {
#if KOPS_EXCEPTIONS
  report(m.c_str());
#else
  return report(m.c_str());
#endif
}

// Reports the printf-formatted message (see report): throws kops::error, or
// calls the handler and returns false. Returns only in a build without exceptions.
#if KOPS_EXCEPTIONS
[[noreturn]]
#endif
__attribute__((noinline, cold, format(printf, 1, 2))) inline bool fail(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  const message m = vformat(fmt, ap);
  va_end(ap);
#if KOPS_EXCEPTIONS
  report(m.c_str());
#else
  return report(m.c_str());
#endif
}

} // namespace detail
} // namespace kops
