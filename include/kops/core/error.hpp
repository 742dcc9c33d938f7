#pragma once

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
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
  explicit error(const std::string& what) : std::runtime_error(what) {}
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
inline std::atomic<error_handler> current_error_handler{&default_error_handler};
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
  return detail::current_error_handler.exchange(handler ? handler : &detail::default_error_handler);
}

/// The handler set_error_handler installed (the default one if none was).
inline error_handler get_error_handler() noexcept { return detail::current_error_handler.load(); }

namespace detail {

// Error messages are printf-formatted by these cold, out-of-line functions
// rather than assembled with std::string operator+ and std::to_string at each
// throw site: every such concatenation is inlined code that each translation
// unit compiles at -O3 (they were a fifth of a CUDA TU's compile time), and
// a message is built only when something fails.
__attribute__((format(printf, 1, 0))) inline std::string vformat(const char* fmt, std::va_list ap) {
  char small[256];
  std::va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(small, sizeof small, fmt, ap);
  std::string s;
  if (n < 0) {
    s = fmt;
  } else if (std::size_t(n) < sizeof small) {
    s.assign(small, std::size_t(n));
  } else {
    s.resize(std::size_t(n));
    std::vsnprintf(s.data(), s.size() + 1, fmt, again);
  }
  va_end(again);
  return s;
}

// The printf-formatted string.
__attribute__((noinline, cold, format(printf, 1, 2))) inline std::string format(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

// Reports a failure whose message is already built: throws kops::error (with
// exceptions), or calls the error handler and returns false (without). Callers
// return at once when it returns: `if (bad) return report(msg);`.
#if KOPS_EXCEPTIONS
[[noreturn]]
#endif
__attribute__((noinline, cold)) inline bool report(const std::string& message) {
#if KOPS_EXCEPTIONS
  throw error(message);
#else
  get_error_handler()(message.c_str());
  return false;
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
  std::string s = vformat(fmt, ap);
  va_end(ap);
#if KOPS_EXCEPTIONS
  report(s);
#else
  return report(s);
#endif
}

} // namespace detail
} // namespace kops
