#pragma once

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kops {

/// kops::error: every run-time failure kops reports (bad sizes, null pointers,
/// backend failures) is thrown as this type or a type derived from it.
class error : public std::runtime_error {
public:
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {

// Error messages are printf-formatted by these two cold, out-of-line functions
// rather than assembled with std::string operator+ and std::to_string at each
// throw site: every such concatenation is inlined code that each translation
// unit compiles at -O3 (they were a fifth of a CUDA TU's compile time), and
// a message is built only when something is thrown.
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

// Throws kops::error with the printf-formatted message.
[[noreturn]] __attribute__((noinline, cold, format(printf, 1, 2))) inline void fail(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  throw error(s);
}

} // namespace detail
} // namespace kops
