// The block scheduler of kops::cuda_emulated: a CUDA thread block on CPU fibers.
//
//   grid (gx, gy, gz) of blocks, run one after another (x fastest) on the launching OS thread;
//   each block: blockDim.x * y * z fibers (one mmap'd stack each), run in
//   threadIdx order until each reaches __syncthreads or returns; the barrier opens
//   when every thread of the block waits at it.
//
// A switch between fibers is a few instructions on x86-64 (switch_stacks
// below: the callee-saved registers and the FP control words pushed, the stack
// pointer swapped); elsewhere, or with KOPS_EMULATED_UCONTEXT defined, glibc's
// swapcontext, which also saves the signal mask with a system call at every
// switch (bench/emulator/run.sh: 12x a switch, 2.2-2.4x a kops call).
// The fibers outlive the OS thread that made them: a thread's runner hands
// them to a process-wide pool when the thread ends, and the next thread's
// runner takes them from there, so that a thread per device and call
// (eval_host across devices) does not map and unmap stacks, or create
// ThreadSanitizer fiber states, for every call.
//
// Why fibers rather than OS threads: a barrier is then ~blockDim context switches
// in user space instead of blockDim futex wake-ups on two cores, and the run is
// deterministic (a missing barrier fails the same way at every run). Races stay
// visible to ThreadSanitizer, which is told about every switch and treats each
// fiber as a thread of its own:
//   - switches at a barrier carry no synchronisation (__tsan_switch_to_fiber_no_sync);
//     the barrier's happens-before edges are an atomic counter that every arriving
//     thread increments (release) and every leaving thread reads (acquire);
//   - a block's first switch into each fiber and each fiber's exit synchronise
//     with the scheduler, so blocks are ordered one after another (races between
//     threads of different blocks are not reported: see docs/cuda_emulated.md).
// AddressSanitizer is told about every stack switch (__sanitizer_*_switch_fiber).
//
// Divergent barriers are an error here (compute-sanitizer synccheck's analogue):
// when some threads of a block wait at __syncthreads and the others have
// returned, the process prints which and aborts.
//
// Warps: threads 32w .. 32w + 31 in linear order (x fastest) form warp w, as on
// a GPU. __syncwarp is a barrier of the warp's threads (every lane of the warp
// must reach it: a warp some of whose lanes wait while others returned or wait
// at __syncthreads aborts, as above); the shuffles and the emulated mma.sync
// exchange values through a per-warp buffer between two warp barriers.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <kops/config.hpp>

#if defined(KOPS_EMULATED_TSAN)
#include <sanitizer/tsan_interface.h>
#endif
#if defined(KOPS_EMULATED_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

// The context switch (below, context): KOPS_EMULATED_ASM_SWITCH where the
// SysV x86-64 ABI holds (not x32) and the code is not built for CET shadow
// stacks (-fcf-protection=full or =return: a switch returns onto another stack,
// which a shadow stack refuses); glibc's ucontext elsewhere.
#if !defined(KOPS_EMULATED_UCONTEXT) && defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__) && \
    !(defined(__CET__) && (__CET__ & 2))
#define KOPS_EMULATED_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif
#if !defined(KOPS_EMULATED_ASM_SWITCH)
#include <cfenv>
#endif

/// CUDA's uint3: a thread's or block's index.
struct uint3 {
  unsigned int x, y, z;
};

/// CUDA's dim3: grid and block extents (components default to 1).
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

namespace kops::cuda_emulated {
namespace detail {

// Prints "kops::cuda_emulated: <message>" and aborts: what a GPU reports as
// a kernel fault or compute-sanitizer as an error ends the process here.
[[noreturn]] __attribute__((noinline, cold, format(printf, 1, 2))) inline void fatal(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::fputs("kops::cuda_emulated: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
  std::fflush(stderr);
  std::abort();
}

// A saved execution context (a fiber's, or the scheduler's while a fiber
// runs), the switch from the running one to another, and the floating-point
// control state a kernel's threads start with.
#if defined(KOPS_EMULATED_ASM_SWITCH)
// switch_stacks(save, load) pushes rbp, rbx, r12-r15 and the MXCSR and x87
// control words on the current stack, stores the stack pointer in *save,
// loads `load` and pops the same from there: the state the SysV ABI has a
// callee keep (every other register is the caller's to save around a call).
// Naked inline functions: the compiler emits them once per program (COMDAT,
// LTO included) and adds the CET landing pad where asked (-fcf-protection).
[[gnu::naked, gnu::noinline, gnu::visibility("hidden")]] inline void switch_stacks(void** /*save*/, void* /*load*/) {
  __asm__(
      "  pushq %rbp\n"
      "  pushq %rbx\n"
      "  pushq %r12\n"
      "  pushq %r13\n"
      "  pushq %r14\n"
      "  pushq %r15\n"
      "  subq $8, %rsp\n"
      "  stmxcsr (%rsp)\n"
      "  fnstcw 4(%rsp)\n"
      "  movq %rsp, (%rdi)\n"
      "  movq %rsi, %rsp\n"
      "  ldmxcsr (%rsp)\n"
      "  fldcw 4(%rsp)\n"
      "  addq $8, %rsp\n"
      "  popq %r15\n"
      "  popq %r14\n"
      "  popq %r13\n"
      "  popq %r12\n"
      "  popq %rbx\n"
      "  popq %rbp\n"
      "  ret\n");
}
// Where a new fiber's first switch returns to: calls r12(rbx), its entry
// function on its argument (which never returns). Unwinders stop here.
[[gnu::naked, gnu::noinline, gnu::visibility("hidden")]] inline void fiber_start() {
  __asm__(
      "  .cfi_undefined rip\n"
      "  movq %rbx, %rdi\n"
      "  callq *%r12\n"
      "  ud2\n");
}

struct context {
  void* sp = nullptr;  // the stack pointer switch_stacks saved
};
inline void switch_context(context& save, const context& load) { switch_stacks(&save.sp, load.sp); }

// MXCSR without its status flags, and the x87 control word.
struct fp_control {
  std::uint32_t mxcsr = 0x1f80;
  std::uint16_t x87 = 0x037f;
};
inline fp_control save_fp_control() {
  fp_control c;
  __asm__ volatile("stmxcsr %0" : "=m"(c.mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(c.x87));
  c.mxcsr &= ~0x3fu;
  return c;
}
inline void load_fp_control(const fp_control& c) {
  __asm__ volatile("ldmxcsr %0" : : "m"(c.mxcsr));
  __asm__ volatile("fldcw %0" : : "m"(c.x87));
}

// A context that starts fn(arg) on [stack, stack + bytes) at its first switch.
inline void make_context(context& c, char* stack, std::size_t bytes, void (*fn)(void*), void* arg) {
  // The stack's top is page-aligned. From it down: two zero words (a null
  // return address for unwinders, and the alignment that leaves the stack
  // 16-byte aligned at fn's call), fiber_start as the return address,
  // rbp = 0 (frame-pointer walks stop there), rbx = arg, r12 = fn, r13-r15,
  // then the FP control words (the fiber's entry loads its launch's before
  // each block: block_runner::entry).
  auto* p = reinterpret_cast<std::uintptr_t*>(stack + bytes);
  *--p = 0;
  *--p = 0;
  *--p = reinterpret_cast<std::uintptr_t>(&fiber_start);
  *--p = 0;                                      // rbp
  *--p = reinterpret_cast<std::uintptr_t>(arg);  // rbx
  *--p = reinterpret_cast<std::uintptr_t>(fn);   // r12
  *--p = 0;                                      // r13
  *--p = 0;                                      // r14
  *--p = 0;                                      // r15
  *--p = 0;
  const fp_control fp;
  std::memcpy(reinterpret_cast<char*>(p), &fp.mxcsr, 4);
  std::memcpy(reinterpret_cast<char*>(p) + 4, &fp.x87, 2);
  c.sp = p;
}
#else
struct context {
  ucontext_t uc;
};
inline void switch_context(context& save, const context& load) { ::swapcontext(&save.uc, &load.uc); }

struct fp_control {
  std::fenv_t env;
};
inline fp_control save_fp_control() {
  fp_control c;
  std::fegetenv(&c.env);
  return c;
}
inline void load_fp_control(const fp_control& c) { std::fesetenv(&c.env); }

// makecontext passes ints: fn and arg in halves.
inline void ucontext_entry(unsigned flo, unsigned fhi, unsigned alo, unsigned ahi) {
  const auto fn = reinterpret_cast<void (*)(void*)>((std::uintptr_t(fhi) << 32) | std::uintptr_t(flo));
  fn(reinterpret_cast<void*>((std::uintptr_t(ahi) << 32) | std::uintptr_t(alo)));
}
inline void make_context(context& c, char* stack, std::size_t bytes, void (*fn)(void*), void* arg) {
  ::getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  const auto f = reinterpret_cast<std::uintptr_t>(fn), a = reinterpret_cast<std::uintptr_t>(arg);
  ::makecontext(&c.uc, reinterpret_cast<void (*)()>(&ucontext_entry), 4, unsigned(f & 0xffffffffu),
                unsigned(f >> 32), unsigned(a & 0xffffffffu), unsigned(a >> 32));
}
#endif

struct block_runner;

// One emulated CUDA thread.
struct fiber {
  enum state_t { runnable, at_barrier, at_warp_barrier, exited };

  context ctx;
  void* map = nullptr;        // the mapping: one guard page, then the stack
  std::size_t map_bytes = 0;
  char* stack = nullptr;      // lowest usable stack address
  std::size_t stack_bytes = 0;
  uint3 tid{0, 0, 0};
  unsigned linear = 0;  // the linear thread index (x fastest): lane linear % 32 of warp linear / 32
  state_t state = runnable;
  bool has_context = false;  // entry() is running on this stack (it never returns)
  bool block_start = true;   // the next resume is the first of a block
  // The runner that resumed it last: the one to switch back to. Set at every
  // resume, since a fiber may serve another OS thread's runner after its
  // first (the pool, below).
  block_runner* runner = nullptr;
  void* tsan = nullptr;       // ThreadSanitizer's context of this fiber
  void* asan_fake = nullptr;  // AddressSanitizer's fake stack while switched out

  explicit fiber(std::size_t bytes) {
    const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    stack_bytes = (bytes + page - 1) / page * page;
    map_bytes = stack_bytes + page;
    map = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) fatal("cannot map a %zu-byte fiber stack", map_bytes);
    // A stack overflow hits the guard page (SIGSEGV) instead of another stack.
    ::mprotect(map, page, PROT_NONE);
    stack = static_cast<char*>(map) + page;
#if defined(KOPS_EMULATED_TSAN)
    tsan = __tsan_create_fiber(0);
#endif
    created().fetch_add(1, std::memory_order_relaxed);
  }
  ~fiber() {
#if defined(KOPS_EMULATED_TSAN)
    __tsan_destroy_fiber(tsan);
#endif
    ::munmap(map, map_bytes);
  }
  // The fibers the process has made so far (the pool's test).
  static std::atomic<long>& created() {
    static std::atomic<long> n{0};
    return n;
  }
  fiber(const fiber&) = delete;
  fiber& operator=(const fiber&) = delete;
};

// The fibers of the OS threads that have ended, for the next threads' runners.
// A fiber in it waits at the end of a block (in block_runner::leave), as
// between two blocks of one thread. It grows to the most fibers that runners
// held at once. At static destruction (after the main thread's runner gave
// its fibers) it destroys them and closes: ThreadSanitizer waits a second at
// exit while any fiber state lives (atexit_sleep_ms), and a thread that ends
// later destroys its own. The object itself is never destroyed, so that such
// a thread can still lock it.
struct fiber_pool {
  std::mutex lock;
  std::vector<std::unique_ptr<fiber>> free;
  bool closed = false;

  struct closer {
    fiber_pool& pool;
    ~closer() {
      std::lock_guard<std::mutex> g(pool.lock);
      pool.closed = true;
      pool.free.clear();
    }
  };
  static fiber_pool& get() {
    static fiber_pool* const pool = new fiber_pool;
    static closer close_at_exit{*pool};
    return *pool;
  }
  std::unique_ptr<fiber> take() {
    std::lock_guard<std::mutex> g(lock);
    if (free.empty()) return nullptr;
    std::unique_ptr<fiber> f = std::move(free.back());
    free.pop_back();
    return f;
  }
  void give(std::vector<std::unique_ptr<fiber>>& fibers) {
    std::lock_guard<std::mutex> g(lock);
    if (!closed)
      for (auto& f : fibers) free.push_back(std::move(f));
    fibers.clear();
  }
};

// Runs the blocks of the launches made on one OS thread.
struct block_runner {
  context sched;
  void* sched_tsan = nullptr;
  const void* sched_stack = nullptr;  // the scheduler's stack, for ASan
  std::size_t sched_stack_bytes = 0;
  void* sched_fake = nullptr;
  // The launching thread's FP control state, which each thread of a block
  // starts with (as a GPU thread starts with its defaults): whatever rounding
  // mode the fiber's previous block, or another host thread's, left.
  fp_control fp{};

  std::vector<std::unique_ptr<fiber>> fibers;
  fiber* current = nullptr;  // the fiber running now (null: the scheduler)
  void (*body)(void*) = nullptr;
  void* body_arg = nullptr;
  uint3 block_idx{0, 0, 0};
  dim3 block_dim, grid_dim;
  void* dynamic_shared = nullptr;
  std::size_t dynamic_shared_bytes = 0;
  // The barrier's happens-before edges for TSan (plain counters otherwise):
  // barrier round g's arrivals release and its departures acquire
  // barrier_sync[g % 2]. Two objects suffice: a thread can arrive at round g + 1
  // before the others leave round g, never at round g + 2.
  unsigned barrier_round = 0;
  std::atomic<unsigned> barrier_sync[2] = {0, 0};
  // The same for each warp's barrier (__syncwarp), and the warps' exchange
  // buffers: 64 bytes per lane (a shuffled value, an mma's fragments).
  static constexpr unsigned max_warps = 32;  // 1024 threads
  static constexpr std::size_t lane_bytes = 64;
  unsigned warp_round[max_warps] = {};
  std::atomic<unsigned> warp_sync[max_warps][2] = {};
  alignas(16) unsigned char warp_exchange[max_warps][32][lane_bytes];

  block_runner() = default;
  block_runner(const block_runner&) = delete;
  block_runner& operator=(const block_runner&) = delete;
  // The thread ends: its fibers go to the pool.
  ~block_runner() { fiber_pool::get().give(fibers); }

  static std::size_t stack_bytes() {
    // 256 KiB per emulated thread by default (mapped lazily: untouched pages
    // cost nothing); KOPS_EMULATED_STACK_KIB overrides it.
    static const std::size_t bytes = [] {
      const char* e = std::getenv("KOPS_EMULATED_STACK_KIB");
      const long kib = e ? std::atol(e) : 0;
      return std::size_t(kib > 0 ? kib : 256) * 1024;
    }();
    return bytes;
  }

  static block_runner*& tls() {
    static thread_local block_runner* r = nullptr;
    return r;
  }
  static block_runner& get() {
    block_runner*& r = tls();
    if (r == nullptr) {
      static thread_local block_runner instance;
      r = &instance;
    }
    return *r;
  }

  // Entry of every fiber, on its own stack: runs the kernel once per block it
  // is given and never returns: after each run it waits, inside leave(), for
  // the next block, of this runner or (from the pool) of another thread's.
  // (Restarting it with a fresh context instead would abandon its frames,
  // which ThreadSanitizer's per-fiber shadow call stack would count as never
  // exited, overflowing after some thousands of blocks.)
  static void entry(void* arg) {
    fiber* f = static_cast<fiber*>(arg);
#if defined(KOPS_EMULATED_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &f->runner->sched_stack, &f->runner->sched_stack_bytes);
#endif
    for (;;) {
      block_runner* r = f->runner;
      load_fp_control(r->fp);
#if defined(__cpp_exceptions)
      try {
        r->body(r->body_arg);
      } catch (...) {
        fatal("an exception escaped a kernel (block (%u,%u,%u))", r->block_idx.x, r->block_idx.y, r->block_idx.z);
      }
#else
      r->body(r->body_arg);
#endif
      r->leave(fiber::exited);
    }
  }

  // From a fiber: back to the scheduler, in state `s`. The fiber may come
  // back under another runner (an exited fiber handed to the pool, whose
  // runner may be gone by then), hence f->runner and never this after the
  // switch.
  KOPS_EMULATED_NO_TSAN void leave(fiber::state_t s) {
    fiber* f = current;
    f->state = s;
#if defined(KOPS_EMULATED_TSAN)
    __tsan_switch_to_fiber(sched_tsan, s == fiber::exited ? 0u : unsigned(__tsan_switch_to_fiber_no_sync));
#endif
#if defined(KOPS_EMULATED_ASAN)
    __sanitizer_start_switch_fiber(&f->asan_fake, sched_stack, sched_stack_bytes);
#endif
    switch_context(f->ctx, sched);
#if defined(KOPS_EMULATED_ASAN)
    __sanitizer_finish_switch_fiber(f->asan_fake, &f->runner->sched_stack, &f->runner->sched_stack_bytes);
#endif
  }

  // From the scheduler: run fiber f until it waits at a barrier or returns.
  KOPS_EMULATED_NO_TSAN void resume(fiber* f) {
    current = f;
    f->runner = this;
#if defined(KOPS_EMULATED_TSAN)
    __tsan_switch_to_fiber(f->tsan, f->block_start ? 0u : unsigned(__tsan_switch_to_fiber_no_sync));
#endif
    f->block_start = false;
#if defined(KOPS_EMULATED_ASAN)
    __sanitizer_start_switch_fiber(&sched_fake, f->stack, f->stack_bytes);
#endif
    switch_context(sched, f->ctx);
#if defined(KOPS_EMULATED_ASAN)
    __sanitizer_finish_switch_fiber(sched_fake, nullptr, nullptr);
#endif
    current = nullptr;
  }

  KOPS_EMULATED_NO_TSAN void prepare(fiber* f, uint3 tid, unsigned linear) {
    f->tid = tid;
    f->linear = linear;
    f->state = fiber::runnable;
    f->block_start = true;
    if (f->has_context) return;
    f->has_context = true;
    make_context(f->ctx, f->stack, f->stack_bytes, &entry, f);
  }

  // Runs one block of `threads` fibers to completion.
  KOPS_EMULATED_NO_TSAN void run_block(unsigned threads) {
#if defined(KOPS_EMULATED_TSAN)
    if (sched_tsan == nullptr) sched_tsan = __tsan_get_current_fiber();
#endif
    fp = save_fp_control();
    while (fibers.size() < threads) {
      std::unique_ptr<fiber> f = fiber_pool::get().take();
      fibers.push_back(f ? std::move(f) : std::make_unique<fiber>(stack_bytes()));
    }
    unsigned t = 0;
    for (unsigned z = 0; z < block_dim.z; ++z)
      for (unsigned y = 0; y < block_dim.y; ++y)
        for (unsigned x = 0; x < block_dim.x; ++x, ++t) prepare(fibers[t].get(), uint3{x, y, z}, t);
    for (;;) {
      for (unsigned k = 0; k < threads; ++k)
        if (fibers[k]->state == fiber::runnable) resume(fibers[k].get());
      unsigned waiting = 0, exited = 0, first_exited = threads;
      for (unsigned k = 0; k < threads; ++k) {
        if (fibers[k]->state == fiber::at_barrier) ++waiting;
        else if (fibers[k]->state == fiber::exited && ++exited && first_exited == threads) first_exited = k;
      }
      if (exited == threads) return;
      if (open_warp_barriers(threads)) continue;
      if (waiting == threads) {
        for (unsigned k = 0; k < threads; ++k) fibers[k]->state = fiber::runnable;
        ++barrier_round;
        continue;
      }
      if (waiting + exited < threads) stuck_warp(threads);  // some wait at __syncwarp: never returns
      const uint3 e = fibers[first_exited]->tid;
      fatal("divergent __syncthreads in block (%u,%u,%u): %u of its %u threads wait at a barrier that "
            "thread (%u,%u,%u) and %u others never reach (they returned)",
            block_idx.x, block_idx.y, block_idx.z, waiting, threads, e.x, e.y, e.z, threads - waiting - 1);
    }
  }

  // Opens the barrier of every warp whose lanes all wait at __syncwarp; true
  // when it opened one.
  KOPS_EMULATED_NO_TSAN bool open_warp_barriers(unsigned threads) {
    bool opened = false;
    for (unsigned lo = 0; lo < threads; lo += 32) {
      const unsigned hi = lo + 32 < threads ? lo + 32 : threads;
      unsigned at = 0;
      for (unsigned k = lo; k < hi; ++k) at += fibers[k]->state == fiber::at_warp_barrier;
      if (at == 0 || at < hi - lo) continue;
      for (unsigned k = lo; k < hi; ++k) fibers[k]->state = fiber::runnable;
      ++warp_round[lo / 32];
      opened = true;
    }
    return opened;
  }

  // No thread can go on and some wait at __syncwarp: report the first such warp.
  [[noreturn]] void stuck_warp(unsigned threads) {
    for (unsigned lo = 0; lo < threads; lo += 32) {
      const unsigned hi = lo + 32 < threads ? lo + 32 : threads;
      unsigned at = 0, block = 0, gone = 0;
      for (unsigned k = lo; k < hi; ++k) {
        at += fibers[k]->state == fiber::at_warp_barrier;
        block += fibers[k]->state == fiber::at_barrier;
        gone += fibers[k]->state == fiber::exited;
      }
      if (at > 0)
        fatal("divergent __syncwarp in block (%u,%u,%u), warp %u: %u of its %u lanes wait at __syncwarp (or a "
              "shuffle, or mma.sync), %u at __syncthreads, %u returned",
              block_idx.x, block_idx.y, block_idx.z, lo / 32, at, hi - lo, block, gone);
    }
    fatal("internal error: a block made no progress");
  }

  // Accessors of the running thread's coordinates (hidden from TSan: the
  // scheduler writes them between switches).
  KOPS_EMULATED_NO_TSAN static const uint3& thread_idx_of(const block_runner* r) {
    if (r == nullptr || r->current == nullptr) fatal("threadIdx read outside a kernel");
    return r->current->tid;
  }
};

KOPS_EMULATED_NO_TSAN const uint3& thread_idx() { return block_runner::thread_idx_of(block_runner::tls()); }
KOPS_EMULATED_NO_TSAN const uint3& block_idx() { return block_runner::get().block_idx; }
KOPS_EMULATED_NO_TSAN const dim3& block_dim() { return block_runner::get().block_dim; }
KOPS_EMULATED_NO_TSAN const dim3& grid_dim() { return block_runner::get().grid_dim; }

KOPS_EMULATED_NO_TSAN block_runner* running_block() {
  block_runner* r = block_runner::tls();
  return r != nullptr && r->current != nullptr ? r : nullptr;
}

KOPS_EMULATED_NO_TSAN void* dynamic_shared_of(block_runner* r) { return r->dynamic_shared; }
KOPS_EMULATED_NO_TSAN std::atomic<unsigned>& barrier_sync_of(block_runner* r) {
  return r->barrier_sync[r->barrier_round & 1];
}
KOPS_EMULATED_NO_TSAN unsigned linear_thread_of(const block_runner* r) { return r->current->linear; }
KOPS_EMULATED_NO_TSAN unsigned block_threads_of(const block_runner* r) {
  return r->block_dim.x * r->block_dim.y * r->block_dim.z;
}
KOPS_EMULATED_NO_TSAN std::atomic<unsigned>& warp_sync_of(block_runner* r, unsigned warp) {
  return r->warp_sync[warp][r->warp_round[warp] & 1];
}

// The running thread's warp: its block, index, lane and lanes (32, or fewer
// in a last partial warp).
struct warp_of_thread {
  block_runner* r;
  unsigned warp, lane, lanes;
};
inline warp_of_thread current_warp(const char* what) {
  block_runner* r = running_block();
  if (r == nullptr) fatal("%s called outside a kernel", what);
  const unsigned t = linear_thread_of(r), n = block_threads_of(r);
  const unsigned warp = t / 32;
  return {r, warp, t % 32, n - warp * 32 < 32 ? n - warp * 32 : 32};
}

} // namespace detail

/// The block-wide barrier (CUDA's __syncthreads): returns when every thread of
/// the block has called it.
inline void syncthreads() {
  detail::block_runner* r = detail::running_block();
  if (r == nullptr) detail::fatal("__syncthreads() called outside a kernel");
  // Arrival publishes this thread's writes, leaving acquires everybody's (the
  // edges ThreadSanitizer sees; the scheduler provides the waiting).
  std::atomic<unsigned>& sync = detail::barrier_sync_of(r);
  sync.fetch_add(1, std::memory_order_release);
  r->leave(detail::fiber::at_barrier);
  (void)sync.load(std::memory_order_acquire);
}

/// The warp-wide barrier (CUDA's __syncwarp with every lane in the mask):
/// returns when every lane of the calling thread's warp has called it.
inline void syncwarp() {
  const detail::warp_of_thread w = detail::current_warp("__syncwarp()");
  std::atomic<unsigned>& sync = detail::warp_sync_of(w.r, w.warp);
  sync.fetch_add(1, std::memory_order_release);
  w.r->leave(detail::fiber::at_warp_barrier);
  (void)sync.load(std::memory_order_acquire);
}

/// The calling thread's lane (0 .. 31) in its warp.
inline unsigned lane_id() { return detail::current_warp("the lane index").lane; }

/// Every lane of the warp publishes `v` (trivially copyable, at most 64
/// bytes); `read(lane)` then returns what that lane published, and
/// warp_exchange returns what `read` returns for this lane. Both ends are
/// warp barriers, so a warp's lanes must all call it (the shuffles and the
/// emulated mma.sync are built on it).
template <class T, class Read>
auto warp_exchange(const T& v, Read read) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= detail::block_runner::lane_bytes,
                "kops::cuda_emulated::warp_exchange: a trivially copyable value of at most 64 bytes");
  const detail::warp_of_thread w = detail::current_warp("a warp-level exchange");
  unsigned char(&slots)[32][detail::block_runner::lane_bytes] = w.r->warp_exchange[w.warp];
  std::memcpy(slots[w.lane], &v, sizeof(T));
  syncwarp();
  const auto lane_value = [&](unsigned lane) {
    if (lane >= w.lanes) detail::fatal("a warp-level exchange read lane %u of a warp of %u lanes", lane, w.lanes);
    T x;
    std::memcpy(&x, slots[lane], sizeof(T));
    return x;
  };
  const auto result = read(lane_value, w.lane, w.lanes);
  syncwarp();
  return result;
}

/// The running block's dynamic shared memory: exactly the launch's byte count
/// (a fresh heap block per thread block, so AddressSanitizer reports any access
/// past it), filled with 0xff bytes (NaN for floating-point data) at the start
/// of each block, as a GPU's shared memory holds no meaningful initial values.
/// Kernels built for kops::cuda_emulated use it where a GPU kernel declares
/// `extern __shared__ T buffer[];`.
template <class T = void>
T* dynamic_shared() {
  detail::block_runner* r = detail::running_block();
  if (r == nullptr) detail::fatal("dynamic shared memory used outside a kernel");
  return static_cast<T*>(detail::dynamic_shared_of(r));
}

} // namespace kops::cuda_emulated
