// KeOps 1.5 side of the nvcc compile-time comparison: the Gaussian sum and its
// gradient on device data, GPU_1D and GPU_2D schemes, as core/link_autodiff.cu's
// GpuReduc1D_FromDevice / GpuReduc2D_FromDevice run them. Instantiates 6 kernels:
// per formula GpuConv1DOnDevice_NoChunks, GpuConv2DOnDevice and reduce2D.
// Compiled, never run, by bench/compile/run.sh; flags in flags.sh.
#include "gauss_grad.h"

using namespace keops;

int run(int nx, int ny, __TYPE__* out, __TYPE__* gx, __TYPE__** args, __TYPE__** gargs) {
  return Eval<F_SUM, GpuConv1D_FromDevice>::Run(nx, ny, out, args) +
         Eval<F_SUM, GpuConv2D_FromDevice>::Run(nx, ny, out, args) +
         Eval<F_GRAD, GpuConv1D_FromDevice>::Run(nx, ny, gx, gargs) +
         Eval<F_GRAD, GpuConv2D_FromDevice>::Run(nx, ny, gx, gargs);
}

int main() { return 0; }
