// The conformance corpus, in two translation units (they compile in parallel):
//   corpus_ops.cpp         formula operations group by group (sum reductions), their
//                          derivatives (against KeOps' Grad), and main
//   corpus_reductions.cpp  every reduction, reduction gradients, calculus, float32 cases
//   corpus_strings.cpp     cases written as KeOps strings (kops::keops_reduction), one a line
// Every case is one kops reduction type; see golden_writer.hpp for what is recorded.
#pragma once

#include "golden_writer.hpp"

// Ops not (yet) in the umbrella header.
#include <kops/ops/acos.hpp>
#include <kops/ops/argmax.hpp>
#include <kops/ops/argmin.hpp>
#include <kops/ops/asin.hpp>
#include <kops/ops/atan.hpp>
#include <kops/ops/atan2.hpp>
#include <kops/ops/bspline.hpp>
#include <kops/ops/clamp.hpp>
#include <kops/ops/clampint.hpp>
#include <kops/ops/comparisons.hpp>
#include <kops/ops/floor.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/kron.hpp>
#include <kops/ops/mod.hpp>
#include <kops/ops/one_hot.hpp>
#include <kops/ops/powf.hpp>
#include <kops/ops/relu.hpp>
#include <kops/ops/round.hpp>
#include <kops/ops/sinxdivx.hpp>
#include <kops/ops/softdtw_sqdist.hpp>
#include <kops/ops/step.hpp>
#include <kops/ops/xlogx.hpp>

#include "example_cases.hpp"

namespace kops_conformance {

void add_op_cases(corpus& c);
void add_reduction_cases(corpus& c);
void add_string_cases(corpus& c);

// A KeOps Sum stage over the given axis.
inline stage sum_stage(std::string formula, int axis, int dim, std::vector<std::string> extra = {}) {
  return stage{.formula = std::move(formula), .reduction_op = "Sum", .axis = axis, .dim = dim, .extra_args = std::move(extra)};
}

// The j-index 0 .. N-1 as a j-variable: KeOps stages that select the term at a
// given index (the one-hot gradients of min/max) compare it with an arg.
inline aux_array j_index(std::int64_t N) {
  aux_array a{"jidx", 'j', 1, {}};
  for (std::int64_t j = 0; j < N; ++j) a.data.push_back(double(j));
  return a;
}

} // namespace kops_conformance
