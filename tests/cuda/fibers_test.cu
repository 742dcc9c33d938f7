// The emulator's fibers themselves (kops::cuda_emulated only; an empty file for
// nvcc): what a switch between two emulated threads keeps (the registers a
// call keeps, the floating-point control words), that a block's threads start
// with the launching host thread's rounding mode, exceptions thrown and caught
// on a fiber's stack, and the pool that hands the fibers of an OS thread that
// ended to the next threads' launches (eval_host across devices starts a
// thread per device and call). The same
// tests run plain, under ASan + UBSan and under TSan (tools/sanitize.sh), the
// last two with fibers moving between OS threads.
#if defined(KOPS_TEST_EMULATED)
#include "cuda_support.hpp"

#include <algorithm>
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <latch>
#include <thread>
#include <vector>

namespace {

constexpr int carried = 12;

// One thread's values, changed once per round: integers and integer-valued
// doubles (exact in any rounding mode), so that the host reproduces them.
struct carry_state {
  long long w[carried];
  double v[carried];
};

__host__ __device__ inline void carry_init(carry_state& s, unsigned t) {
  for (int k = 0; k < carried; ++k) {
    s.w[k] = 7919LL * t + 104729LL * k + 1;
    s.v[k] = double(t) + double(k);
  }
}

__host__ __device__ inline void carry_step(carry_state& s) {
  for (int k = 0; k < carried; ++k) {
    s.w[k] = (s.w[k] * 1103515245LL + 12345LL + s.w[(k + 1) % carried]) & 0xffffffffLL;
    s.v[k] += double(s.w[k] & 1023);
  }
}

__host__ __device__ inline double carry_sum(const carry_state& s) {
  double r = 0;
  for (int k = 0; k < carried; ++k) r += s.v[k] + double(s.w[k] & 0xffff);
  return r;
}

// Every thread records the rounding mode it starts with, then carries its
// state through `rounds` barriers (the switches away from it and back).
// Threads t % 3 == 0 switch to rounding downward first, and leave it so (the
// next block's threads, on the same fibers, must still start with the
// launching thread's mode). After the rounds each thread records its
// rounding mode (the x87 control word) and a division rounded by MXCSR.
__global__ void carry_kernel(int rounds, double* sums, int* start_modes, int* modes, float* third) {
  const unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  start_modes[g] = std::fegetround();
  if (t % 3 == 0) std::fesetround(FE_DOWNWARD);
  carry_state s;
  carry_init(s, t);
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    carry_step(s);
  }
  modes[g] = std::fegetround();
  volatile float one = 1.0f, three = 3.0f;
  volatile float q = one / three;
  third[g] = q;
  sums[g] = carry_sum(s);
}

#if defined(__cpp_exceptions)
[[gnu::noinline]] void throw_int(int v) { throw v; }

// Each thread throws and catches an exception on its own stack, after a
// switch. Unwinding there is only right when AddressSanitizer knows the
// fiber's stack (else it prints that it ignores __asan_handle_no_return:
// ctest emulated_asan_knows_the_fiber_stacks).
__global__ void throwing_kernel(int* out) {
  int caught = 0;
  __syncthreads();
  try {
    throw_int(int(threadIdx.x));
  } catch (int v) {
    caught = v + 1;
  }
  __syncthreads();
  out[threadIdx.x] = caught;
}
#endif

// Each block's sum of `in`, by a tree in shared memory (a barrier per level).
__global__ void block_sums_kernel(int n, const int* in, long long* out) {
  __shared__ long long part[256];
  const int t = int(threadIdx.x);
  const int i = int(blockIdx.x * blockDim.x) + t;
  part[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int w = int(blockDim.x) / 2; w > 0; w /= 2) {
    if (t < w) part[t] += part[t + w];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}

// Thread t reads its neighbour's cell, then rewrites its own, with no barrier
// between the two: thread 63 reads cell 0 after thread 0 rewrote it. A race
// that ThreadSanitizer must report through the fibers (hidden test "[.race]",
// run under TSan only, by ctest's emulated_tsan_sees_a_race).
__global__ void racy_kernel(int* out) {
  __shared__ int cell[64];
  const int t = int(threadIdx.x);
  cell[t] = t;
  __syncthreads();
  const int next = cell[(t + 1) % 64];
  cell[t] = next + 1;  // a __syncthreads() belongs before this write
  __syncthreads();
  out[t] = cell[t];
}

// Reads one element past a local array on a fiber's stack, after a switch
// ("[.stack_overrun]", run under ASan only: emulated_asan_sees_a_stack_overrun).
__global__ void stack_overrun_kernel(int k, int* out) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = i + int(threadIdx.x);
  __syncthreads();
  // Through a pointer the compiler cannot follow: UBSan's bounds and
  // object-size checks would stop the read before ASan sees it.
  const int* p = local;
  __asm__("" : "+r"(p));
  out[threadIdx.x] = p[k];
}

float third_in(int mode) {
  const int old = std::fegetround();
  std::fesetround(mode);
  // volatile: the division cannot move past fesetround (GCC assumes the
  // default rounding without -frounding-math).
  volatile float one = 1.0f, three = 3.0f;
  volatile float q = one / three;
  std::fesetround(old);
  return q;
}

// Launches block_sums_kernel (256 threads a block) `times` times on the
// calling host thread; the number of launches whose block sums were all right
// (no Catch2 assertion here: it runs on threads of its own).
int launch_block_sums(int times) {
  constexpr int threads = 256, blocks = 5, n = threads * blocks - 17;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
  int* din = nullptr;
  long long* dout = nullptr;
  int right = 0;
  if (cudaMalloc(&din, n * sizeof(int)) != cudaSuccess || cudaMalloc(&dout, blocks * sizeof(long long)) != cudaSuccess ||
      cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess)
    return -1;
  for (int k = 0; k < times; ++k) {
    int nn = n;
    void* args[] = {&nn, &din, &dout};
    std::vector<long long> got(blocks, 0);
    if (cudaLaunchKernel(block_sums_kernel, dim3(blocks), dim3(threads), args, 0, nullptr) != cudaSuccess ||
        cudaMemcpy(got.data(), dout, blocks * sizeof(long long), cudaMemcpyDeviceToHost) != cudaSuccess)
      continue;
    bool all = true;
    for (int b = 0; b < blocks; ++b) {
      long long want = 0;
      for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) want += in[i];
      all = all && got[b] == want;
    }
    right += all;
  }
  (void)cudaFree(din);
  (void)cudaFree(dout);
  return right;
}

// launch_block_sums(times) on a thread of its own, joined.
int on_a_new_thread(int times) {
  int right = 0;
  std::thread([&] { right = launch_block_sums(times); }).join();
  return right;
}

long fibers_created() { return kops::cuda_emulated::detail::fiber::created().load(); }

} // namespace

// The carry kernel (2 blocks of `threads`) launched from the calling host
// thread with rounding mode `mode`: what each thread recorded (no Catch2
// assertion: it also runs on a thread of its own).
struct carry_run {
  unsigned threads = 0;
  int mode = 0;
  cudaError_t launch = cudaErrorUnknown;
  int mode_after = -1;  // the launching thread's mode after the launch
  std::vector<double> sums;
  std::vector<int> start_modes, modes;
  std::vector<float> third;
};
carry_run run_carry(unsigned threads, int mode) {
  carry_run c;
  c.threads = threads;
  c.mode = mode;
  const int rounds = 24;
  const unsigned n = 2 * threads;
  kops_test::device_copy<double> sums(n);
  kops_test::device_copy<int> start_modes(n), modes(n);
  kops_test::device_copy<float> third(n);
  int r = rounds;
  void* args[] = {&r, &sums.p, &start_modes.p, &modes.p, &third.p};
  const int old = std::fegetround();
  std::fesetround(mode);
  c.launch = cudaLaunchKernel(carry_kernel, dim3(2), dim3(threads), args, 0, nullptr);
  c.mode_after = std::fegetround();
  std::fesetround(old);
  c.sums = sums.to_host();
  c.start_modes = start_modes.to_host();
  c.modes = modes.to_host();
  c.third = third.to_host();
  return c;
}

void check_carry(const carry_run& c) {
  REQUIRE(c.launch == cudaSuccess);
  REQUIRE(c.mode_after == c.mode);  // the launching thread's own mode, whatever the kernel's threads set
  const float down = third_in(FE_DOWNWARD), other = third_in(c.mode);
  REQUIRE(down != third_in(FE_TONEAREST));
  for (unsigned g = 0; g < 2 * c.threads; ++g) {
    const unsigned t = g % c.threads;
    carry_state want;
    carry_init(want, t);
    for (int k = 0; k < 24; ++k) carry_step(want);
    INFO("threads " << c.threads << ", mode " << c.mode << ", block " << g / c.threads << ", thread " << t);
    CHECK(c.sums[g] == carry_sum(want));
    CHECK(c.start_modes[g] == c.mode);
    CHECK(c.modes[g] == (t % 3 == 0 ? FE_DOWNWARD : c.mode));
    CHECK(std::memcmp(&c.third[g], t % 3 == 0 ? &down : &other, sizeof(float)) == 0);
  }
}

TEST_CASE("emulator: a switch keeps each thread's registers and floating-point control words", "[emulator]") {
  for (const unsigned threads : {1u, 33u, 192u}) check_carry(run_carry(threads, FE_TONEAREST));
  // Another host thread, rounding upward: its launches' threads start so, on
  // fibers that the last launch's left rounding downward.
  std::vector<carry_run> runs;
  std::thread([&runs] {
    for (const unsigned threads : {33u, 192u}) runs.push_back(run_carry(threads, FE_UPWARD));
  }).join();
  REQUIRE(runs.size() == 2);
  for (const carry_run& c : runs) check_carry(c);
  check_carry(run_carry(192, FE_TONEAREST));
}

#if defined(__cpp_exceptions)
TEST_CASE("emulator: a kernel's threads throw and catch exceptions on their own stacks", "[emulator][throw]") {
  kops_test::device_copy<int> out(std::size_t(64));
  void* args[] = {&out.p};
  REQUIRE(cudaLaunchKernel(throwing_kernel, dim3(3), dim3(64), args, 0, nullptr) == cudaSuccess);
  const std::vector<int> got = out.to_host();
  for (int t = 0; t < 64; ++t) CHECK(got[t] == t + 1);
}
#endif

TEST_CASE("emulator: the fibers of a host thread that ended serve the next threads' launches", "[emulator]") {
  REQUIRE(on_a_new_thread(2) == 2);
  const long after_first = fibers_created();
  // One thread after another: each takes the fibers the last one left.
  for (int k = 0; k < 5; ++k) CHECK(on_a_new_thread(2) == 2);
  CHECK(fibers_created() == after_first);
  // Three threads alive at once hold three sets (launches are serialised,
  // blocks stay on their thread): at most two more, then none for the next three.
  for (int round = 0; round < 2; ++round) {
    const long before = fibers_created();
    std::latch launched(3);
    int right[3] = {};
    std::vector<std::thread> ts;
    for (int k = 0; k < 3; ++k)
      ts.emplace_back([&launched, &right, k] {
        right[k] = launch_block_sums(1);
        launched.arrive_and_wait();  // every thread holds its fibers now
        right[k] += launch_block_sums(2);
      });
    for (auto& t : ts) t.join();
    for (const int r : right) CHECK(r == 3);
    if (round == 0) CHECK(fibers_created() - before <= 2 * 256);
    else CHECK(fibers_created() == before);
  }
}

// The sanitizers' own checks through the fibers: each must end in a report
// (ctest matches it; tests/CMakeLists.txt registers them in sanitizer builds).
TEST_CASE("emulator: a race between two threads of a block", "[.race]") {
  kops_test::device_copy<int> out(std::size_t(64));
  void* args[] = {&out.p};
  REQUIRE(cudaLaunchKernel(racy_kernel, dim3(1), dim3(64), args, 0, nullptr) == cudaSuccess);
  (void)out.to_host();
}

TEST_CASE("emulator: a read past a local array of a kernel", "[.stack_overrun]") {
  kops_test::device_copy<int> out(std::size_t(32));
  int k = 8;
  void* args[] = {&k, &out.p};
  REQUIRE(cudaLaunchKernel(stack_overrun_kernel, dim3(1), dim3(32), args, 0, nullptr) == cudaSuccess);
  (void)out.to_host();
}
#endif
