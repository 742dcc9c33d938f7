// Conformance corpus, part 2: every reduction, the gradients of reductions
// (compared with KeOps' own Grad), the calculus operators (compared with KeOps'
// Diff, GradMatrix, Divergence, Laplacian) and a float32 subset.
#include "corpus.hpp"

namespace kops_conformance {

namespace {

using kops::to_keops_string;

void add_reductions(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;

  c.add("sum_axis_i", "reductions", sum_reduction(exp(-sqdist(x, y)) * vi<2, 2>, axis_i), {.what = "sum_reduction over i"});
  c.add("gauss_conv", "reductions", examples::gauss_conv, {.what = "sum_reduction (Gaussian convolution)", .ranges = {{3, {0.5, 2.0}}}});
  c.add("min_reduction", "reductions", min_reduction(sin(x * y * cst<3>) + vj<2, 1>, axis_j), {.what = "min_reduction"});
  c.add("max_reduction_axis_i", "reductions", max_reduction(cos(x - y) * vi<2, 1>, axis_i), {.what = "max_reduction over i"});
  c.add("argmin_reduction", "reductions", argmin_reduction(concat(sqdist(x, y), dot(x, y)), axis_j),
        {.what = "argmin_reduction",
         .note = "indices: kops writes int64, KeOps floats (compared as integers)"});
  c.add("argmax_reduction", "reductions", argmax_reduction(x * y - vj<2, 1>, axis_j), {.what = "argmax_reduction"});
  c.add("argmin_ties", "reductions", argmin_reduction(sqdist(x, y), axis_j),
        {.what = "argmin_reduction with ties (first index wins)",
         .all = {-1.0, 1.0},
         .integer_step = {{0, 1.0}, {1, 1.0}}});
  c.add("min_argmin", "reductions", min_argmin_reduction(sqdist(x, y) - vj<2, 2>, axis_j),
        {.what = "min_argmin_reduction",
         .note = "kops writes value_index<T> {value, index}; KeOps concatenates values and float indices"});
  c.add("max_argmax_axis_i", "reductions", max_argmax_reduction(x * y, axis_i), {.what = "max_argmax_reduction over i"});
  c.add("kmin", "reductions", kmin_reduction<3>(concat(sqdist(x, y), dot(x, y)), axis_j), {.what = "kmin_reduction<3>"});
  c.add("argkmin", "reductions", argkmin_reduction<4>(sqdist(x, y), axis_j), {.what = "argkmin_reduction<4>"});
  c.add("argkmin_ties", "reductions", argkmin_reduction<4>(sqdist(x, y), axis_j),
        {.what = "argkmin_reduction<4> with ties (equal values in index order)",
         .all = {-1.0, 1.0},
         .integer_step = {{0, 1.0}, {1, 1.0}}});
  c.add("kmin_argkmin_axis_i", "reductions", examples::knn_values_indices, {.what = "kmin_argkmin_reduction<3> over i"});

  constexpr auto f = dot(x, y) - sqnorm2(y);
  c.add("logsumexp", "reductions", logsumexp_reduction(f, axis_j),
        {.what = "logsumexp_reduction (|f| in the hundreds: the stable shifted sums)", .all = {-12.0, 12.0}});
  c.add("logsumexp_weighted", "reductions", logsumexp_reduction(f, vj<2, 2>, axis_j),
        {.what = "logsumexp_reduction with a weight", .ranges = {{2, {0.1, 2.0}}}});
  c.add("sumsoftmaxweight", "reductions", sumsoftmaxweight_reduction(f, vj<2, 3>, axis_j),
        {.what = "sumsoftmaxweight_reduction"});

  // A NaN term: kops (as numpy) lets NaN win; KeOps' comparisons skip it.
  std::vector<double> ynan(std::size_t(c.N() * 3));
  for (std::size_t k = 0; k < ynan.size(); ++k) ynan[k] = -1.0 + 2.0 * double((k * 7919) % 1000) / 1000.0;
  ynan[3 * 5] = std::numeric_limits<double>::quiet_NaN();
  c.add("min_nan", "reductions", min_reduction(x * y, axis_j),
        {.what = "min_reduction with a NaN term",
         .note = "documented semantic difference: kops returns NaN (a NaN term wins, as numpy's min); "
                 "KeOps' comparisons never select a NaN and return the min of the other terms",
         .values = {{1, ynan}},
         .expected = expect::semantic_difference});
}

void add_reduction_gradients(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  constexpr auto b = vj<2, 1>;
  constexpr auto p = pm<3, 1>;
  constexpr auto f = exp(-p * sqdist(x, y)) * sin(dot(x, y) + b);
  constexpr auto e = vi<4, 1>;
  constexpr auto red = sum_reduction(f, axis_j);
  const std::string F = to_keops_string(f), E = to_keops_string(e);
  const case_options pos{.ranges = {{3, {0.5, 1.5}}}};
  auto with = [&](case_options o, std::string what, std::vector<stage> st) {
    o.what = std::move(what);
    o.stages = std::move(st);
    return o;
  };

  // sum: KeOps' Grad(F, V, E) summed over the axis that kops's gradient reduces
  c.add("grad_sum_x", "gradients", grad(red, x, e), with(pos, "grad of sum_reduction w.r.t. vi", {sum_stage(keops_grad(f, x, e), 1, 3)}));
  c.add("grad_sum_y", "gradients", grad(red, y, e), with(pos, "grad of sum_reduction w.r.t. vj (reduced axis)", {sum_stage(keops_grad(f, y, e), 0, 3)}));
  c.add("grad_sum_b", "gradients", grad(red, b, e), with(pos, "grad of sum_reduction w.r.t. a dim-1 vj", {sum_stage(keops_grad(f, b, e), 0, 1)}));
  c.add("grad_sum_param", "gradients", grad(red, p, e),
        with(pos, "grad of sum_reduction w.r.t. a parameter (per-row contributions)", {sum_stage(keops_grad(f, p, e), 1, 1)}));
  {
    constexpr auto f2 = concat(f, sqdist(x, y) * b);
    constexpr auto e2 = vj<4, 2>;
    c.add("grad_sum_axis_i", "gradients", grad(sum_reduction(f2, axis_i), x, e2),
          with(pos, "grad of an axis_i sum_reduction w.r.t. vi (reduced axis)", {sum_stage(keops_grad(f2, x, e2), 1, 3)}));
  }
  {
    constexpr auto e5 = vi<5, 3>;  // indexed like the rows of grad(red, x, e)
    c.add("grad_grad_sum", "gradients", grad(grad(red, x, e), y, e5),
          with(pos, "second derivative: grad w.r.t. vj of grad w.r.t. vi",
               {sum_stage("Grad(" + keops_grad(f, x, e) + "," + to_keops_string(y) + "," + to_keops_string(e5) + ")", 0, 3)}));
  }

  // min/max: kops's gradient is [d_v f]^T e taken at the arg; KeOps has none, so
  // the KeOps side is ArgMin (stage 0), then a sum over j of Grad(F, V, E * [j == arg]).
  {
    constexpr auto g = sin(x * y * cst<3>) + b;
    constexpr auto e3 = vi<4, 3>;
    const std::string G = to_keops_string(g);
    const std::string sel = "(" + to_keops_string(e3) + "*Equal(" + keops_var(5, 1, 'j') + "," + keops_var(6, 3, 'i') + "))";
    case_options o{.what = "grad of min_reduction w.r.t. vi (one-hot at the argmin)",
                   .note = "KeOps has no gradient for Min: compared with ArgMin, then Sum of Grad(F, V, E*Equal(J, A))",
                   .stages = {stage{.formula = G, .reduction_op = "ArgMin", .axis = 1, .dim = 3},
                              sum_stage("Grad(" + G + "," + to_keops_string(x) + "," + sel + ")", 1, 3, {"jidx", "s0"})},
                   .aux = {j_index(c.N())}};
    c.add("grad_min_x", "gradients", grad(min_reduction(g, axis_j), x, e3), o);
  }
  {
    constexpr auto h = exp(-p * sqdist(x, y)) + elem<0>(x) * b;
    constexpr auto e1 = vi<4, 1>;
    const std::string H = to_keops_string(h);
    const std::string sel = "(" + to_keops_string(e1) + "*Equal(" + keops_var(5, 1, 'j') + "," + keops_var(6, 1, 'i') + "))";
    case_options o{.what = "grad of max_reduction w.r.t. a parameter (one-hot at the argmax, per row)",
                   .note = "KeOps has no gradient for Max: compared with ArgMax, then Sum of Grad(F, P, E*Equal(J, A))",
                   .ranges = {{3, {0.5, 1.5}}},
                   .stages = {stage{.formula = H, .reduction_op = "ArgMax", .axis = 1, .dim = 1},
                              sum_stage("Grad(" + H + "," + to_keops_string(p) + "," + sel + ")", 1, 1, {"jidx", "s0"})},
                   .aux = {j_index(c.N())}};
    c.add("grad_max_param", "gradients", grad(max_reduction(h, axis_j), p, e1), o);
  }

  // logsumexp: with L = log sum_j exp(F) computed by KeOps (stage 0),
  //   d/dv log sum_j exp F = sum_j Grad(Exp(F - L), v, E)   (L held fixed)
  {
    constexpr auto fl = dot(x, y) - sqnorm2(y);
    constexpr auto el = vi<2, 1>;
    const std::string FL = to_keops_string(fl);
    const std::string L = keops_var(3, 1, 'i');
    auto lse = [&](auto v, int axis, const char* what) {
      return case_options{.what = what,
                          .stages = {stage{.formula = FL, .reduction_op = "LogSumExp", .axis = 1, .dim = 1},
                                     sum_stage("Grad(Exp(" + FL + "-" + L + ")," + to_keops_string(v) + "," + to_keops_string(el) + ")",
                                               axis, 3, {"s0"})}};
    };
    const auto red_l = logsumexp_reduction(fl, axis_j);
    c.add("grad_logsumexp_x", "gradients", grad(red_l, x, el), lse(x, 1, "grad of logsumexp_reduction w.r.t. vi (one pass)"));
    c.add("grad_logsumexp_y", "gradients", examples::lse_grad_y,
          lse(y, 0, "grad of logsumexp_reduction w.r.t. vj (two passes: kops::Chained)"));
    c.add<float>("grad_logsumexp_y_f32", "float32", examples::lse_grad_y, lse(y, 0, "grad of logsumexp_reduction w.r.t. vj, float32"));
  }
  // weighted logsumexp: L_k = log sum_j exp(F) G_k;  d = sum_j Grad(Exp(F - L) * G, v, E)
  {
    constexpr auto fl = dot(x, y) - sqnorm2(y);
    constexpr auto gw = vj<2, 2>;
    constexpr auto ew = vi<3, 2>;
    const std::string FL = to_keops_string(fl), GW = to_keops_string(gw);
    const std::string L = keops_var(4, 2, 'i');
    auto wlse = [&](auto v, int axis, int dim, const char* what) {
      return case_options{
          .what = what,
          .ranges = {{2, {0.1, 2.0}}},
          .stages = {stage{.formula = FL, .reduction_op = "LogSumExp", .axis = 1, .dim = 1, .formula2 = GW},
                     sum_stage("Grad((Exp(" + FL + "-" + L + ")*" + GW + ")," + to_keops_string(v) + "," + to_keops_string(ew) + ")",
                               axis, dim, {"s0"})}};
    };
    const auto red_w = logsumexp_reduction(fl, gw, axis_j);
    c.add("grad_logsumexp_weighted_y", "gradients", grad(red_w, y, ew), wlse(y, 0, 3, "grad of weighted logsumexp w.r.t. vj"));
    c.add("grad_logsumexp_weighted_g", "gradients", grad(red_w, gw, ew), wlse(gw, 0, 2, "grad of weighted logsumexp w.r.t. its weight"));
    c.add("grad_logsumexp_weighted_x", "gradients", grad(red_w, x, ew),
          wlse(x, 1, 3, "grad of weighted logsumexp w.r.t. vi (one pass; pykeops: two calls)"));
  }
  // sumsoftmaxweight: O = sum_j softmax(F) G (stage 1), L as above (stage 0);
  //   d = sum_j Grad(Exp(F - L) * ((G - O) | E), v, 1)   (L, O, E held fixed)
  {
    constexpr auto fl = dot(x, y) - sqnorm2(y);
    constexpr auto gs = vj<2, 3>;
    constexpr auto es = vi<3, 3>;
    const std::string FL = to_keops_string(fl), GS = to_keops_string(gs);
    const std::string L = keops_var(4, 1, 'i'), O = keops_var(5, 3, 'i');
    auto ssmw = [&](auto v, int axis, int dim, const char* what) {
      return case_options{
          .what = what,
          .stages = {stage{.formula = FL, .reduction_op = "LogSumExp", .axis = 1, .dim = 1},
                     stage{.formula = FL, .reduction_op = "SumSoftMaxWeight", .axis = 1, .dim = 3, .formula2 = GS},
                     sum_stage("Grad((Exp(" + FL + "-" + L + ")*((" + GS + "-" + O + ")|" + to_keops_string(es) + "))," +
                                   to_keops_string(v) + ",IntCst(1))",
                               axis, dim, {"s0", "s1"})}};
    };
    const auto red_s = sumsoftmaxweight_reduction(fl, gs, axis_j);
    c.add("grad_sumsoftmaxweight_x", "gradients", grad(red_s, x, es), ssmw(x, 1, 3, "grad of sumsoftmaxweight w.r.t. vi"));
    c.add("grad_sumsoftmaxweight_y", "gradients", grad(red_s, y, es),
          ssmw(y, 0, 3, "grad of sumsoftmaxweight w.r.t. vj (two passes)"));
    c.add("grad_sumsoftmaxweight_g", "gradients", grad(red_s, gs, es),
          ssmw(gs, 0, 3, "grad of sumsoftmaxweight w.r.t. its weight (two passes)"));
  }
  // Forward derivatives of reductions (kops::diff on a reduction, KeOps' Diff of one),
  // along u: stage 0 L = LogSumExp (weighted: L_k), stage 1 O = SumSoftMaxWeight, then
  //   logsumexp:        sum_j Exp(F - L) Diff(F, v, u)
  //   weighted:         sum_j Exp(F - L_k) G_k Diff(F, v, u)        (G does not depend on v)
  //   sumsoftmaxweight: sum_j Exp(F - L) Diff(F, v, u) (G - O)
  {
    constexpr auto fl = dot(x, y) - sqnorm2(y);
    constexpr auto g = vj<2, 2>;
    constexpr auto ux = vi<3, 3>;
    constexpr auto uy = vj<3, 3>;
    const std::string FL = to_keops_string(fl), G = to_keops_string(g);
    const std::string L1 = keops_var(4, 1, 'i'), L2 = keops_var(4, 2, 'i'), O = keops_var(5, 2, 'i');
    const auto df = [&](auto v, auto u) {
      return "Diff(" + FL + "," + to_keops_string(v) + "," + to_keops_string(u) + ")";
    };
    const stage lse{.formula = FL, .reduction_op = "LogSumExp", .axis = 1, .dim = 1};
    c.add("diff_sum_y", "gradients", diff(sum_reduction(exp(fl) * g, axis_j), y, uy),
          {.what = "diff (forward mode) of a sum_reduction w.r.t. vj",
           .stages = {sum_stage("Diff((Exp(" + FL + ")*" + G + ")," + to_keops_string(y) + "," + to_keops_string(uy) + ")",
                                1, 2)}});
    c.add("diff_logsumexp_x", "gradients", diff(logsumexp_reduction(fl, axis_j), x, ux),
          {.what = "diff (forward mode) of logsumexp w.r.t. vi (one softmax pass)",
           .stages = {lse, sum_stage("(Exp((" + FL + "-" + L1 + "))*" + df(x, ux) + ")", 1, 1, {"s0"})}});
    c.add("diff_logsumexp_weighted_y", "gradients", diff(logsumexp_reduction(fl, g, axis_j), y, uy),
          {.what = "diff (forward mode) of weighted logsumexp w.r.t. vj (one pass; pykeops: two calls)",
           .ranges = {{2, {0.1, 2.0}}},
           .stages = {stage{.formula = FL, .reduction_op = "LogSumExp", .axis = 1, .dim = 2, .formula2 = G},
                      sum_stage("((Exp((" + FL + "-" + L2 + "))*" + G + ")*" + df(y, uy) + ")", 1, 2, {"s0"})}});
    c.add("diff_sumsoftmaxweight_x", "gradients", diff(sumsoftmaxweight_reduction(fl, g, axis_j), x, ux),
          {.what = "diff (forward mode) of sumsoftmaxweight w.r.t. vi (one pass)",
           .stages = {lse, stage{.formula = FL, .reduction_op = "SumSoftMaxWeight", .axis = 1, .dim = 2, .formula2 = G},
                      sum_stage("((Exp((" + FL + "-" + L1 + "))*" + df(x, ux) + ")*(" + G + "-" + O + "))", 1, 2,
                                {"s0", "s1"})}});
  }
}

// Calculus operators inside formulas, against KeOps' own operators.
void add_calculus(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  constexpr auto b = vj<2, 1>;
  constexpr auto f = exp(-sqdist(x, y)) * sin(dot(x, y) + b);  // dim 1
  constexpr auto fv = exp(-sqdist(x, y)) * (x - y) * cos(x * y + b);  // dim 3
  const std::string X = to_keops_string(x), Y = to_keops_string(y);
  auto keops = [](std::string formula, int dim) { return std::vector<stage>{sum_stage(std::move(formula), 1, dim)}; };

  constexpr auto u = vi<3, 3>;
  c.add("diff", "calculus", sum_reduction(diff(fv, x, u), axis_j),
        {.what = "diff (forward mode)", .stages = keops("Diff(" + to_keops_string(fv) + "," + X + "," + to_keops_string(u) + ")", 3)});
  constexpr auto fv2 = extract<0, 2>(fv) * f;
  c.add("grad_matrix", "calculus", sum_reduction(grad_matrix(fv2, x), axis_j),
        {.what = "grad_matrix", .stages = keops("GradMatrix(" + to_keops_string(fv2) + "," + X + ")", 6)});
  c.add("divergence", "calculus", sum_reduction(divergence(fv, x), axis_j),
        {.what = "divergence", .stages = keops("Divergence(" + to_keops_string(fv) + "," + X + ")", 1)});
  c.add("laplacian", "calculus", sum_reduction(laplacian(f, y), axis_j),
        {.what = "laplacian", .stages = keops("Laplacian(" + to_keops_string(f) + "," + Y + ")", 1)});
  constexpr auto g = vj<3, 1>;
  c.add("grad_in_formula", "calculus", sum_reduction(grad(f, y, g) * elem<0>(x) + grad(f, x, g), axis_j),
        {.what = "grad inside a formula",
         .stages = keops("((" + keops_grad(f, y, g) + "*Elem(" + X + ",0))+" + keops_grad(f, x, g) + ")", 3)});
}

void add_float32(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  c.add<float>("gauss_conv_f32", "float32", examples::gauss_conv, {.what = "sum_reduction, float32", .ranges = {{3, {0.5, 2.0}}}});
  c.add<float>("exp_log_trig_f32", "float32",
               sum_reduction(exp(-sqdist(x, y)) * log(sqnorm2(x) + cst<1>) + sin(x - y) * cos(x * y), axis_j),
               {.what = "exp log sin cos, float32"});
  c.add<float>("logsumexp_f32", "float32", logsumexp_reduction(dot(x, y) - sqnorm2(y), axis_j), {.what = "logsumexp_reduction, float32"});
  c.add<float>("complex_f32", "float32", sum_reduction(complex_mult(complex_exp(vi<0, 4> - vj<1, 4>), vj<1, 4>), axis_j),
               {.what = "complex_exp complex_mult, float32"});
}

} // namespace

// Block-sparse cases (kops::block_sparsity, pykeops `ranges`): every row in a
// block, each block over two or three intervals with at least 4 terms.
void add_block_sparse(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  // M = 37 i rows over the N = 29 j's, and N rows over the M i's.
  static kops::cluster::structure by_i, by_j;
  by_i.rows = {{0, 10}, {10, 11}, {11, 30}, {30, 37}};
  by_i.slices = {2, 3, 5, 7};
  by_i.reduced = {{0, 5}, {9, 20}, {3, 29}, {0, 4}, {20, 29}, {4, 12}, {12, 13}};
  by_j.rows = {{0, 7}, {7, 29}};
  by_j.slices = {2, 3};
  by_j.reduced = {{0, 12}, {30, 37}, {5, 25}};
  static const kops::block_sparsity si = by_i.view(), sj = by_j.view();
  const std::string note = "block-sparse: kops::block_sparsity / pykeops ranges (the six arrays)";
  c.add("ranges_gauss_conv", "block_sparse", examples::gauss_conv,
        {.what = "sum_reduction, block-sparse", .note = note, .ranges = {{3, {0.5, 2.0}}}, .sparsity = &si});
  c.add("ranges_sum_axis_i", "block_sparse", sum_reduction(exp(-sqdist(x, y)) * vi<2, 2>, axis_i),
        {.what = "sum_reduction over i, block-sparse", .note = note, .sparsity = &sj});
  c.add("ranges_min_argmin", "block_sparse", min_argmin_reduction(sqdist(x, y) - vj<2, 2>, axis_j),
        {.what = "min_argmin_reduction, block-sparse", .note = note, .sparsity = &si});
  c.add("ranges_argkmin", "block_sparse", argkmin_reduction<4>(sqdist(x, y), axis_j),
        {.what = "argkmin_reduction<4>, block-sparse", .note = note, .sparsity = &si});
  c.add("ranges_logsumexp", "block_sparse", logsumexp_reduction(-sqdist(x, y), axis_j),
        {.what = "logsumexp_reduction, block-sparse", .note = note, .sparsity = &si});
  c.add("ranges_sumsoftmaxweight_axis_i", "block_sparse",
        sumsoftmaxweight_reduction(-sqdist(x, y), vi<2, 2>, axis_i),
        {.what = "sumsoftmaxweight_reduction over i, block-sparse", .note = note, .sparsity = &sj});
  c.add<float>("ranges_gauss_conv_float32", "block_sparse", examples::gauss_conv,
               {.what = "sum_reduction, block-sparse, float32", .note = note, .ranges = {{3, {0.5, 2.0}}},
                .sparsity = &si});
}

// Batched cases (kops::batch, kops::per_batch; pykeops: a leading batch
// dimension, B or 1): per-batch and shared arguments of each kind, parameters
// included (KeOps #366), both axes, the index reductions, float32.
void add_batched(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  const std::string note = "batched: kops::batch{3}, the arguments marked per_batch with a leading batch axis; "
                           "pykeops: the same arrays as (3, rows, D) / (3, D), the shared ones as (1, rows, D) / (1, D)";
  const std::int64_t B = 3;
  c.add<double, 0b1101u>("batch_gauss_conv", "batch", examples::gauss_conv,
                         {.what = "sum_reduction, batched: x, b and the scale per batch, y shared", .note = note,
                          .ranges = {{3, {0.5, 2.0}}}, .batch = B});
  c.add<double, 0b1000u>("batch_gauss_conv_param", "batch", examples::gauss_conv,
                         {.what = "sum_reduction, batched: only the parameter per batch", .note = note,
                          .ranges = {{3, {0.5, 2.0}}}, .batch = B});
  c.add<double, 0b011u>("batch_min_argmin", "batch", min_argmin_reduction(sqdist(x, y) - vj<2, 2>, axis_j),
                        {.what = "min_argmin_reduction, batched: x and y per batch, the offset shared",
                         .note = note, .batch = B});
  c.add<double, 0b01u>("batch_argkmin_axis_i", "batch", argkmin_reduction<3>(sqdist(x, y), axis_i),
                       {.what = "argkmin_reduction<3> over i, batched: x per batch, y shared", .note = note,
                        .batch = B});
  c.add<double, 0b10u>("batch_logsumexp", "batch", logsumexp_reduction(dot(x, y) - sqnorm2(y), axis_j),
                       {.what = "logsumexp_reduction, batched: y per batch, x shared", .note = note, .batch = B});
  c.add<double, 0b101u>("batch_sumsoftmaxweight", "batch", sumsoftmaxweight_reduction(dot(x, y), vj<2, 3>, axis_j),
                        {.what = "sumsoftmaxweight_reduction, batched: x and the values per batch", .note = note,
                         .batch = B});
  c.add<double, 0b10111u>("batch_grad_gauss_x", "batch", grad(examples::gauss_conv, x, vi<4, 2>),
                          {.what = "gradient of a Gaussian convolution w.r.t. x, batched", .note = note,
                           .ranges = {{3, {0.5, 2.0}}}, .batch = B});
  c.add<float, 0b0111u>("batch_gauss_conv_f32", "batch", examples::gauss_conv,
                        {.what = "sum_reduction, batched, float32", .note = note, .ranges = {{3, {0.5, 2.0}}},
                         .batch = B});
}

void add_reduction_cases(corpus& c) {
  add_reductions(c);
  add_block_sparse(c);
  add_batched(c);
  add_reduction_gradients(c);
  add_calculus(c);
  add_float32(c);
}

} // namespace kops_conformance
