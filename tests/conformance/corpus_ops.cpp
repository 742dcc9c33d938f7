// Conformance corpus, part 1: the formula operations, group by group, each in
// a sum reduction over j, and their derivatives (docs/conformance.md). Also the
// generator's main:
//   kops_conformance_gen <output folder>
#include "corpus.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

namespace kops_conformance {

namespace {

void add_formula_cases(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  constexpr auto b = vj<2, 1>;
  constexpr auto p = pm<3, 1>;

  // Arithmetic, constants.
  c.add("arith_ops", "arithmetic", sum_reduction((x - y) * x / (y * y + cst<2>) - -(x * b), axis_j),
        {.what = "add subtract mult divide minus"});
  c.add("arith_broadcast", "arithmetic", sum_reduction((x + b) * (y - p) / (b + cst<2>) + p, axis_j),
        {.what = "{1,D} broadcasting of vi/vj/pm operands"});
  c.add("constants", "constants",
        sum_reduction(x * (cst<1> / cst<3>) + cst<-2> * y + cst<5> / cst<7> + sum_t<3>(zero<1>) * b, axis_j),
        {.what = "integer and rational constants, zero",
         .note = "KeOps 2.3 rounds rational constants (RatCst, IntInv) to float, even in float64: "
                 "IntInv(3) is 0.3333333432674408 (relative error 3e-8)",
         .expected = expect::keops_bug,
         .known_bug_rtol = 1e-6});
  c.add("integer_constants", "constants", sum_reduction(cst<-2> * x * y + cst<7> + cst<3> * b, axis_j),
        {.what = "integer constants"});

  // Powers.
  c.add("powers", "powers",
        sum_reduction(inv(y + cst<2>) + square(x) + pow<3>(x - y) + pow<-2>(b + cst<2>) + pow<5>(x), axis_j),
        {.what = "inv square pow<3> pow<-2> pow<5>"});
  c.add("roots", "powers", sum_reduction(sqrt(x) * rsqrt(y) + rsqrt(x + y) * b, axis_j),
        {.what = "sqrt rsqrt", .all = {0.1, 2.0}});
  c.add("powf", "powers", sum_reduction(powf(x, y - b) + powf(b, x), axis_j),
        {.what = "powf",
         .note = "KeOps 2.3 computes Powf with the C function powf (float) on the CPU, even in float64",
         .all = {0.1, 2.0},
         .expected = expect::keops_bug,
         .known_bug_rtol = 1e-6});

  // Exp, log, trigonometry.
  c.add("exp_log", "exp/log/trig", sum_reduction(exp(-sqdist(x, y)) * log(b + cst<2>) + log(exp(x) + y * y), axis_j),
        {.what = "exp log"});
  c.add("sin_cos", "exp/log/trig", sum_reduction(sin(cst<3> * x - y) * cos(x * y * cst<5>), axis_j), {.what = "sin cos"});
  c.add("inverse_trig", "exp/log/trig", sum_reduction(asin(x * y) + acos(x) * b + atan(cst<4> * (x - y)), axis_j),
        {.what = "asin acos atan", .all = {-0.99, 0.99}});
  c.add("atan2", "exp/log/trig", sum_reduction(atan2(x, y) + atan2(y - x, b), axis_j), {.what = "atan2 (y first)"});
  c.add("xlogx_sinxdivx", "exp/log/trig", sum_reduction(xlogx(x * b) + sinxdivx(cst<4> * (x - y)), axis_j),
        {.what = "xlogx sinxdivx", .ranges = {{0, {0.01, 2.0}}, {2, {0.01, 2.0}}}});

  // Piecewise.
  c.add("abs_sign_step_relu", "piecewise",
        sum_reduction(abs(x - y) + sign(x - y) * b + step(y - x) + relu(x + y - b), axis_j),
        {.what = "abs sign step relu"});
  c.add("clamp", "piecewise",
        sum_reduction(clamp(x + y, b - cst<1>, p) + clampint<-1, 1>(cst<3> * (x - y)), axis_j),
        {.what = "clamp clampint"});
  c.add("floor_round", "piecewise", sum_reduction(floor(cst<3> * (x - y)) + round<2>(x * y) * b + round(cst<5> * x), axis_j),
        {.what = "floor round<2> round<0>"});
  c.add("mod", "piecewise", sum_reduction(mod(cst<4> * (x - y), b + cst<2>, p) + mod(cst<7> * x, cst<2>), axis_j),
        {.what = "mod with and without offset"});
  c.add("ifelse", "piecewise", sum_reduction(ifelse(x - y, x * b, y * y), axis_j), {.what = "ifelse"});
  // The values the semantics define at 0: rsqrt(0) = 0, sign(0) = 0, step(0) = 1,
  // relu(0) = 0, xlogx(0) = 0, sinxdivx(0) = 1, ifelse(0, a, b) = a (operands on {-1, 0, 1}).
  c.add("edge_values", "piecewise",
        sum_reduction(concat(concat(concat(rsqrt(abs(x * y)), sign(x * y)), concat(step(x * y), relu(x * y))),
                             concat(concat(xlogx(abs(x * y)), sinxdivx(x * y)), ifelse(x * y, x, y + cst<3>))),
                      axis_j),
        {.what = "rsqrt sign step relu xlogx sinxdivx ifelse at 0", .integer_step = {{0, 1.0}, {1, 1.0}}});

  // Comparisons: operands on a grid of step 1/2 so that equalities occur.
  c.add("comparisons", "comparisons",
        sum_reduction(concat(concat(equal(x, y), not_equal(x, y)), concat(less_than(x, y), less_or_equal(y, x))), axis_j),
        {.what = "equal not_equal less_than less_or_equal", .all = {-2.0, 2.0}, .integer_step = {{0, 0.5}, {1, 0.5}}});

  // Within-vector.
  constexpr auto x5 = vi<0, 5>;
  constexpr auto y5 = vj<1, 5>;
  c.add("sum_sum_t", "within-vector", sum_reduction(sum(x * y) * sum_t<3>(b) + sum_t<3>(sum(x)), axis_j),
        {.what = "sum sum_t"});
  c.add("max_min_vec", "within-vector", sum_reduction(concat(max(x5 - y5), min(x5 * y5)), axis_j),
        {.what = "max min (within a vector)"});
  c.add("argmax_argmin_vec", "within-vector", sum_reduction(concat(argmax(x5 - y5), argmin(x5 * y5)) * elem<0>(y5), axis_j),
        {.what = "argmax argmin (within a vector, as values)"});

  // Indexing.
  c.add("elem_extract_concat", "indexing", sum_reduction(concat(elem<1>(x), extract<1, 2>(y)) * b + elem<2>(y), axis_j),
        {.what = "elem extract concat"});
  c.add("elem_t_extract_t", "indexing",
        sum_reduction(elem_t<4, 2>(elem<0>(x) * b) + extract_t<1, 4>(extract<0, 3>(y) * x), axis_j),
        {.what = "elem_t extract_t"});
  c.add("one_hot", "indexing", sum_reduction(one_hot<5>(vi<0, 1>) * elem<0>(y5), axis_j),
        {.what = "one_hot", .ranges = {{0, {-0.45, 4.45}}}});

  // Norms and distances.
  c.add("dot_norms", "norms/distances",
        sum_reduction(concat(concat(dot(x, y), sqnorm2(x - y)), concat(norm2(x + y), sqdist(x, y))), axis_j),
        {.what = "dot sqnorm2 norm2 sqdist"});
  c.add("normalize", "norms/distances", sum_reduction(normalize(x - y), axis_j), {.what = "normalize"});
  {
    // weighted norms: isotropic (dim 1), diagonal (dim 3), full symmetric (dim 9)
    const std::vector<double> sym{1.5, 0.2, -0.3, 0.2, 1.1, 0.4, -0.3, 0.4, 0.9};
    c.add("weighted_sqnorm", "norms/distances",
          sum_reduction(concat(concat(weighted_sqnorm(pm<2, 1>, x - y), weighted_sqnorm(pm<3, 3>, x - y)),
                               weighted_sqnorm(pm<4, 9>, x + y)),
                        axis_j),
          {.what = "weighted_sqnorm iso diag full", .ranges = {{2, {0.5, 1.5}}, {3, {0.5, 1.5}}}, .values = {{4, sym}}});
    c.add("weighted_sqdist", "norms/distances", sum_reduction(weighted_sqdist(pm<2, 9>, x, y), axis_j),
          {.what = "weighted_sqdist full", .values = {{2, sym}}});
  }

  // Tensor algebra.
  constexpr auto a12 = vi<0, 12>;
  c.add("matvecmult_vecmatmult", "tensor algebra",
        sum_reduction(concat(matvecmult(a12, vj<1, 4>), vecmatmult(vj<2, 3>, a12)), axis_j),
        {.what = "matvecmult vecmatmult"});
  c.add("tensorprod", "tensor algebra", sum_reduction(tensorprod(vi<0, 4>, vj<1, 3>), axis_j), {.what = "tensorprod"});
  c.add("tensordot", "tensor algebra",
        sum_reduction(concat(tensordot<dims<2, 3>, dims<4, 3>, axes<1>, axes<1>, axes<1, 0>>(vi<0, 6>, vj<1, 12>),
                             tensordot<dims<2, 3, 2>, dims<3, 2>, axes<1, 2>, axes<0, 1>>(vi<2, 12>, vj<3, 6>)),
                      axis_j),
        {.what = "tensordot (permuted output; two contracted axes)"});
  c.add("kron", "tensor algebra",
        sum_reduction(concat(kron<dims<2, 2>, dims<3, 2>>(vi<0, 4>, vj<1, 6>), kron<dims<4>, dims<2>>(vi<0, 4>, vj<2, 2>)),
                      axis_j),
        {.what = "kron (2-D, 1-D)"});

  // Special functions.
  {
    const std::vector<double> knots{0, 0, 0, 1, 2, 2, 3.5, 4, 4, 4};
    const auto spline = sum_reduction(bspline<3>(pm<2, 10>, vi<0, 1>) * vj<1, 1>, axis_j);
    const case_options o{.what = "bspline<3> (repeated knots)", .ranges = {{0, {-0.5, 4.5}}}, .values = {{2, knots}}};
    case_options o64 = o;
    o64.note = "KeOps 2.3 cannot build BSpline in float64 (ValueError: subtraction of two c_variable is only "
               "possible with same dtype); the float32 case bspline_f32 is compared instead.";
    o64.expected = expect::keops_bug;
    o64.isolate = true;
    c.add("bspline", "special", spline, o64);
    case_options o32 = o;
    o32.rtol = 1e-5;
    c.add<float>("bspline_f32", "special", spline, o32);
  }
  {
    // KeOps' CPU code for SoftDTW_SqDist names its loop counters i and j, the
    // names of the row indices through which it reads variable operands: a
    // variable operand is read at the wrong rows. Operands that are expressions
    // are evaluated first, so the scaled form (exact: S(2x, 2y, 4g) = 4 S(x, y, g))
    // computes the right values in KeOps.
    constexpr auto sx = vi<0, 4>;
    constexpr auto sy = vj<1, 3>;
    constexpr auto sg = pm<2, 1>;
    constexpr auto sd = softdtw_sqdist(sx, sy, sg);
    const std::string scaled = "(SoftDTW_SqDist((" + to_keops_string(sx) + "*IntCst(2)),(" + to_keops_string(sy) +
                               "*IntCst(2)),(" + to_keops_string(sg) + "*IntCst(4)))*IntInv(4))";
    c.add("softdtw_sqdist", "special", sum_reduction(sd, axis_j),
          {.what = "softdtw_sqdist",
           .note = "KeOps 2.3 CPU bug: SoftDTW_SqDist of variables reads them at the wrong rows (loop counters "
                   "shadow the row indices i, j); softdtw_sqdist_scaled is compared instead",
           .ranges = {{2, {0.3, 0.6}}},
           .expected = expect::keops_bug});
    c.add("softdtw_sqdist_scaled", "special", sum_reduction(sd, axis_j),
          {.what = "softdtw_sqdist (KeOps side: operands scaled by 2, result by 1/4, exact)",
           .ranges = {{2, {0.3, 0.6}}},
           .stages = {stage{.formula = scaled, .dim = 1}},
           // kops prints SoftDTW_SqDist of the variables: KeOps' wrong rows (as softdtw_sqdist)
           .printed_expected = expect::keops_bug});
    constexpr auto e = vi<3, 1>;
    c.add("grad_softdtw_x", "special", grad(sum_reduction(sd, axis_j), sx, e),
          {.what = "grad of softdtw_sqdist w.r.t. x (KeOps side: the scaled form)",
           .ranges = {{2, {0.3, 0.6}}},
           .stages = {stage{.formula = "Grad(" + scaled + "," + to_keops_string(sx) + "," + to_keops_string(e) + ")",
                            .dim = 4}},
           .printed_expected = expect::keops_bug});  // printed: KeOps' Grad of the variables (bug 4)
    c.add("grad_softdtw_y", "special", grad(sum_reduction(sd, axis_j), sy, e),
          {.what = "grad of softdtw_sqdist w.r.t. y (KeOps side: the scaled form)",
           .ranges = {{2, {0.3, 0.6}}},
           .stages = {stage{.formula = "Grad(" + scaled + "," + to_keops_string(sy) + "," + to_keops_string(e) + ")",
                            .axis = 0,
                            .dim = 3}},
           .printed_expected = expect::keops_bug});  // printed: KeOps' Grad of the variables (bug 4)
  }

  // Complex numbers: z, w hold 2 complex numbers, u one, s is real.
  constexpr auto z = vi<0, 4>;
  constexpr auto w = vj<1, 4>;
  constexpr auto u = vj<2, 2>;
  constexpr auto s = vj<3, 1>;
  c.add("complex_parts", "complex",
        sum_reduction(concat(real(z) * imag(w), real2complex(real(w)) + imag2complex(imag(z)) + conj(z)), axis_j),
        {.what = "real imag real2complex imag2complex conj"});
  c.add("complex_abs_angle", "complex",
        sum_reduction(concat(concat(complex_abs(w), complex_square_abs(z)), complex_angle(complex_mult(z, w))), axis_j),
        {.what = "complex_abs complex_square_abs complex_angle"});
  c.add("complex_sums", "complex", sum_reduction(concat(complex_sum(complex_mult(z, w)), complex_sum_t<4>(complex_sum(w))), axis_j),
        {.what = "complex_sum complex_sum_t"});
  c.add("complex_arith", "complex",
        sum_reduction(concat(concat(complex_add(z, w), complex_subtract(z, u)), complex_mult(u, w)), axis_j),
        {.what = "complex_add complex_subtract complex_mult (complex broadcasting)"});
  c.add("complex_scal_divide", "complex", sum_reduction(concat(complex_real_scal(s, z), complex_divide(z, complex_add(w, u))), axis_j),
        {.what = "complex_real_scal complex_divide"});
  c.add("complex_exp", "complex", sum_reduction(concat(complex_exp(z - w), complex_exp1j(real(w) * s)), axis_j),
        {.what = "complex_exp complex_exp1j"});

  // Kernels (KeOps 1.5): compared with their expansion, which kops prints.
  constexpr auto sc = pm<3, 1>;  // inverse squared scale c = 1 / sigma^2
  constexpr auto bb = vj<2, 2>;
  const case_options kern{.ranges = {{3, {0.5, 1.5}}}};
  auto ko = [&](const char* what) {
    case_options o = kern;
    o.what = what;
    return o;
  };
  c.add("gauss_kernel", "kernels", sum_reduction(gauss_kernel(sc, x, y, bb), axis_j), ko("gauss_kernel"));
  c.add("cauchy_kernel", "kernels", sum_reduction(cauchy_kernel(sc, x, y, bb), axis_j), ko("cauchy_kernel"));
  c.add("laplace_kernel", "kernels", sum_reduction(laplace_kernel(sc, x, y, bb), axis_j), ko("laplace_kernel"));
  c.add("inverse_multiquadric_kernel", "kernels", sum_reduction(inverse_multiquadric_kernel(sc, x, y, bb), axis_j),
        ko("inverse_multiquadric_kernel"));
  c.add("sum_gauss_kernel", "kernels", sum_reduction(sum_gauss_kernel(pm<3, 3>, pm<4, 3>, x, y, bb), axis_j),
        {.what = "sum_gauss_kernel", .ranges = {{3, {0.5, 3.0}}}});
  c.add("divfree_gauss_kernel", "kernels", sum_reduction(divfree_gauss_kernel(sc, x, y, vj<2, 3>), axis_j),
        ko("divfree_gauss_kernel"));
  c.add("curlfree_gauss_kernel", "kernels", sum_reduction(curlfree_gauss_kernel(sc, x, y, vj<2, 3>), axis_j),
        ko("curlfree_gauss_kernel"));

  // Factorization: kops prints the expansion.
  {
    constexpr auto g = exp(-sqdist(x, y));
    c.add("factorize", "factorization", sum_reduction(factorize(g * x + g * g * y, g), axis_j), {.what = "factorize"});
  }

  // High dimension (KeOps splits such vectors into chunks on the GPU only).
  c.add("high_dim", "norms/distances",
        sum_reduction(exp(-pm<3, 1> * sqdist(vi<0, 200>, vj<1, 200>)) * vj<2, 2> + dot(vi<0, 200>, vj<1, 200>), axis_j),
        {.what = "sqdist dot on dim-200 vectors", .all = {-0.2, 0.2}, .ranges = {{3, {0.005, 0.02}}}});
}

// The derivative of every differentiable op, against KeOps' Grad of the same
// formula: grad(sum_reduction(f, axis_j), v, e), f built from one op group.
template <class F, class V, class E>
void add_op_gradient(corpus& c, const std::string& id, F f, V v, E e, case_options o) {
  constexpr bool reduced = V::cat == kops::category::j;
  o.stages = {sum_stage(keops_grad(f, v, e), reduced ? 0 : 1, V::dim)};
  c.add(id, "gradients", kops::grad(kops::sum_reduction(f, kops::axis_j), v, e), o);
}

void add_op_gradients(corpus& c) {
  using namespace kops;
  constexpr auto x = vi<0, 3>;
  constexpr auto y = vj<1, 3>;
  {
    // inputs in (0.1, 0.9): inside every op's domain
    constexpr auto f = examples::op_gradients::elementwise;
    constexpr auto e = vi<2, 3>;
    const case_options o{.what = "derivatives of the element-wise ops", .all = {0.1, 0.9}};
    add_op_gradient(c, "grad_elementwise_x", f, x, e, o);
    add_op_gradient(c, "grad_elementwise_y", f, y, e, o);
    case_options op = o;
    op.what = "derivative of powf";
    op.note = "KeOps 2.3 computes Powf with the C function powf (float) on the CPU, even in float64";
    op.expected = expect::keops_bug;
    op.known_bug_rtol = 1e-6;
    add_op_gradient(c, "grad_powf", powf(x + y, x * y), x, e, op);
  }
  {
    constexpr auto A = examples::op_gradients::matrix;
    constexpr auto f = examples::op_gradients::vector;
    constexpr auto e = vi<4, decltype(f)::dim>;
    const std::vector<double> sym{1.5, 0.2, -0.3, 0.2, 1.1, 0.4, -0.3, 0.4, 0.9};
    add_op_gradient(c, "grad_vector_ops_x", f, x, e,
                    {.what = "derivatives of norms, distances, within-vector, indexing and tensor ops",
                     .values = {{3, sym}}});
    add_op_gradient(c, "grad_vector_ops_matrix", f, A, e,
                    {.what = "derivatives of matvecmult, vecmatmult, tensordot w.r.t. the matrix", .values = {{3, sym}}});
  }
  {
    constexpr auto z = examples::op_gradients::z;
    constexpr auto w = examples::op_gradients::w;
    constexpr auto f = examples::op_gradients::complex;
    constexpr auto e = vi<2, decltype(f)::dim>;
    add_op_gradient(c, "grad_complex_z", f, z, e, {.what = "derivatives of the complex ops"});
    add_op_gradient(c, "grad_complex_w", f, w, e, {.what = "derivatives of the complex ops (second operand)"});
  }
  {
    constexpr auto sc = examples::op_gradients::scale;
    constexpr auto f = examples::op_gradients::kernels;
    constexpr auto e = vi<6, decltype(f)::dim>;
    add_op_gradient(c, "grad_kernels_x", f, x, e,
                    {.what = "derivatives of the kernels", .ranges = {{3, {0.5, 1.5}}, {4, {0.5, 1.5}}}});
    add_op_gradient(c, "grad_kernels_scale", f, sc, e,
                    {.what = "derivatives of the kernels w.r.t. their scale (per row)", .ranges = {{3, {0.5, 1.5}}, {4, {0.5, 1.5}}}});
  }
}

} // namespace

void add_op_cases(corpus& c) {
  add_formula_cases(c);
  add_op_gradients(c);
}

} // namespace kops_conformance

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
    return 2;
  }
  try {
    kops_conformance::corpus c(argv[1], 37, 29, 20240701);
    kops_conformance::add_op_cases(c);
    kops_conformance::add_reduction_cases(c);
    kops_conformance::add_string_cases(c);
    const std::size_t n = c.finish();
    std::printf("kops_conformance_gen: %zu cases written to %s/index.json\n", n, argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kops_conformance_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
