// kops: formulas, reductions and their metadata. Host C++ and device code
// alike; no backend. Include <kops/kokkos.hpp> (CPU) or <kops/cuda.hpp> (GPU,
// .cu files) to evaluate.
#pragma once

#include <kops/config.hpp>
#include <kops/core/constant.hpp>
#include <kops/core/error.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/formula.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/variable.hpp>
#include <kops/core/variables.hpp>

#include <kops/ops/abs.hpp>
#include <kops/ops/sign.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/cos.hpp>
#include <kops/ops/divide.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/exp2.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/inv.hpp>
#include <kops/ops/log.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/mult.hpp>
#include <kops/ops/norm2.hpp>
#include <kops/ops/pow.hpp>
#include <kops/ops/rsqrt.hpp>
#include <kops/ops/sin.hpp>
#include <kops/ops/sqdist.hpp>
#include <kops/ops/sqnorm2.hpp>
#include <kops/ops/sqrt.hpp>
#include <kops/ops/square.hpp>
#include <kops/ops/subtract.hpp>
#include <kops/ops/sum.hpp>

#include <kops/reductions/argmax.hpp>
#include <kops/reductions/argmin.hpp>
#include <kops/reductions/max.hpp>
#include <kops/reductions/min.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/sum.hpp>

#include <kops/autodiff/grad.hpp>
#include <kops/autodiff/reduction_grad.hpp>
#include <kops/io/to_string.hpp>
