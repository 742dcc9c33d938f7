// The Gaussian sum and its gradient w.r.t. x written for KeOps 1.5's template
// engine: the pair bench/compile/gauss_grad.cu compiles for kops, with the same
// variables (x:(M,3) i-indexed, y:(N,3) and b:(N,1) j-indexed, g a scalar
// parameter, e:(M,1) the gradient's input). The formulas are written as KeOps's
// formula.h.in writes FORMULA_OBJ with VAR_ALIASES (its "new syntax"), and are
// run as core/link_autodiff.cu runs its F: Eval<F, MODE>::Run(nx, ny, out, args).
// Built from a KeOps 1.5 tree given by run.sh (KEOPS15_DIR); never in CI.
#pragma once

#include <keops_includes.h>

namespace keops {

auto x = Vi(0, 3);
auto y = Vj(1, 3);
auto b = Vj(2, 1);
auto g = Pm(3, 1);
auto e = Vi(4, 1);

// sum_j exp(-g |x_i - y_j|^2) b_j
using F_SUM = decltype(InvKeopsNS(Sum_Reduction(Exp(-g * SqDist(x, y)) * b, 0)));
// its gradient w.r.t. x_i, applied to e_i
using F_GRAD = decltype(InvKeopsNS(Grad(Sum_Reduction(Exp(-g * SqDist(x, y)) * b, 0), x, e)));

} // namespace keops
