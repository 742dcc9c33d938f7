// The embedded-profile tests' harness: a plain main (no test framework, so
// that the same checks build with and without exceptions), a recording error
// handler, and the two ways a kops call can fail:
//
//   expect_failure(name, message, call)   call() must fail with exactly `message`:
//                                         without exceptions through the handler,
//                                         called once; with them as a kops::error
//                                         (E: the exact type), the handler never called
//   expect_abort(name, message, call)     without exceptions, in a child process
//                                         with the default handler: call() must
//                                         print "kops: <message>" on stderr and abort
//
// Each test file pins the messages it expects; built in both modes, the same
// file checks that both modes carry the same text.
#pragma once

#include <kops/core/error.hpp>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if !KOPS_EXCEPTIONS
#include <csignal>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace embedded_test {

inline int checks = 0;
inline int failures = 0;

// Counts a check; prints the printf-formatted description when it fails.
__attribute__((format(printf, 2, 3))) inline bool expect(bool ok, const char* fmt, ...) {
  ++checks;
  if (ok) return true;
  ++failures;
  std::va_list ap;
  va_start(ap, fmt);
  std::fputs("FAILED: ", stdout);
  std::vfprintf(stdout, fmt, ap);
  std::fputc('\n', stdout);
  va_end(ap);
  return false;
}

// The messages the recording handler received since the last clear.
inline std::vector<std::string>& messages() {
  static std::vector<std::string> m;
  return m;
}
// An error handler that records the message and returns: the kops call that
// failed must then return without doing anything.
inline void record(const char* message) { messages().emplace_back(message); }

inline const char* mode() {
#if KOPS_EXCEPTIONS
  return "exceptions";
#elif defined(__cpp_exceptions)
  return "no exceptions (KOPS_NO_EXCEPTIONS)";
#else
  return "no exceptions (-fno-exceptions)";
#endif
}

// call() must fail with exactly `message` (see the file comment). The recording
// handler must be installed. E: the type the exception build must throw.
template <class E = kops::error, class F>
void expect_failure(const char* name, const char* message, F&& call) {
  messages().clear();
  std::string got;
#if KOPS_EXCEPTIONS
  bool thrown = false;
  try {
    call();
  } catch (const E& e) {
    thrown = true;
    got = e.what();
  } catch (const std::exception& e) {
    got = e.what();
  }
  expect(thrown, "%s: throws the expected exception type", name);
  expect(messages().empty(), "%s: with exceptions the handler is never called (%zu calls)", name,
         messages().size());
#else
  call();
  expect(messages().size() == 1, "%s: the handler is called exactly once (%zu calls)", name, messages().size());
  if (!messages().empty()) got = messages().front();
#endif
  expect(got == message, "%s: the message\n    got:      \"%s\"\n    expected: \"%s\"", name, got.c_str(), message);
}

// Are the n values at p bitwise equal to `sentinel` (the output untouched)?
template <class T>
bool untouched(const T* p, std::size_t n, T sentinel) {
  for (std::size_t k = 0; k < n; ++k)
    if (std::memcmp(&p[k], &sentinel, sizeof(T)) != 0) return false;
  return true;
}

#if !KOPS_EXCEPTIONS
// call() in a child process with the default handler: it must print
// "kops: <message>" on stderr and abort (SIGABRT), never return.
template <class F>
void expect_abort(const char* name, const char* message, F&& call) {
  int fds[2];
  if (!expect(::pipe(fds) == 0, "%s: pipe()", name)) return;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (!expect(pid >= 0, "%s: fork()", name)) return;
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[1]);
    const struct rlimit no_core = {0, 0};  // an expected abort: no core file
    ::setrlimit(RLIMIT_CORE, &no_core);
    kops::set_error_handler(nullptr);
    call();
    ::_exit(3);  // the default handler returned
  }
  ::close(fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
         "%s: the default handler aborts (child status %#x: %s %d)", name, unsigned(status),
         WIFSIGNALED(status) ? "signal" : "exit code", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  const std::string line = std::string("kops: ") + message + "\n";
  expect(err.find(line) != std::string::npos, "%s: the default handler prints the message\n    stderr:   \"%s\"\n    expected: \"%s\"",
         name, err.c_str(), line.c_str());
}
#endif

// The handler API: set_error_handler returns the previous handler, nullptr
// restores the default; get_error_handler says which is installed.
inline void check_handler_api() {
  const kops::error_handler default_handler = kops::get_error_handler();
  expect(default_handler != nullptr, "a default handler is installed");
  expect(kops::set_error_handler(&record) == default_handler, "set_error_handler returns the default handler");
  expect(kops::get_error_handler() == &record, "get_error_handler returns the installed handler");
  expect(kops::set_error_handler(nullptr) == &record, "set_error_handler returns the previous handler");
  expect(kops::get_error_handler() == default_handler, "set_error_handler(nullptr) restores the default");
  kops::set_error_handler(&record);
}

inline int summary(const char* what) {
  std::printf("%s, %s: %d checks, %d failed\ncheck: %s\n", what, mode(), checks, failures,
              failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}

} // namespace embedded_test
