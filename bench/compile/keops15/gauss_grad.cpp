// KeOps 1.5 side of the g++ compile-time comparison: the Gaussian sum and its
// gradient on the CPU, as core/link_autodiff.cpp's CpuReduc runs them (one
// OpenMP loop per formula). Compiled and linked, never run, by
// bench/compile/run.sh; flags in flags.sh.
#include "gauss_grad.h"

#include <vector>

using namespace keops;

int main() {
  std::vector<__TYPE__> p(64 * 3, 0.5f), out(64 * 3);
  __TYPE__* a = p.data();
  __TYPE__* args[5] = {a, a, a, a, a};
  return Eval<F_SUM, CpuConv>::Run(64, 64, out.data(), args) +
         Eval<F_GRAD, CpuConv>::Run(64, 64, out.data(), args);
}
