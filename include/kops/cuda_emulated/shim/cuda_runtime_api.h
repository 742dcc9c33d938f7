// cuda_runtime_api.h of kops::cuda_emulated: the CUDA runtime subset and language extensions
// on the host compiler (docs/cuda_emulated.md). Found through the include path
// of the kops::cuda_emulated target, which also force-includes it, as nvcc
// does with the real one.
#pragma once

#include <kops/cuda_emulated/language.hpp>
#include <kops/cuda_emulated/runtime.hpp>
