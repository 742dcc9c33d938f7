// Conformance corpus, part 3: cases written as KeOps strings (docs/conformance.md).
// Each line is one case: kops parses the string at compile time
// (kops::keops_reduction) and evaluates it; pykeops gets the same string. Adding
// a case is adding a line here. (The cases of corpus_ops.cpp and
// corpus_reductions.cpp build their formulas with kops's C++ builders, and so
// test the builders and kops::to_keops_string as well.)
#include "corpus.hpp"

#include <kops/io/keops_syntax.hpp>

namespace kops_conformance {

namespace {

// A string case: S, a KeOps reduction Name_Reduction(formula[,K],axis) with Var(k,d,c)
// variables, is both kops's reduction (parsed) and pykeops' Genred call.
template <kops::detail::fixed_string S>
void add_string(corpus& c, const std::string& id, const std::string& group, case_options opt = {}) {
  const std::string s(S.s, std::size_t(S.size));
  const std::size_t open = s.find("_Reduction(");
  const std::size_t last = s.rfind(',');
  if (open == std::string::npos || last == std::string::npos || s.back() != ')')
    throw std::runtime_error("corpus: " + id + ": expected Name_Reduction(formula,axis), given " + s);
  stage st{.formula = s.substr(open + 11, last - open - 11), .reduction_op = s.substr(0, open),
           .axis = s[last + 1] == '0' ? 1 : 0};
  if (st.reduction_op == "KMin" || st.reduction_op == "ArgKMin" || st.reduction_op == "KMin_ArgKMin") {
    const std::size_t k = st.formula.rfind(',');
    st.opt_arg = std::stoi(st.formula.substr(k + 1));
    st.formula.resize(k);
  }
  constexpr auto red = kops::keops_reduction<S>;
  st.dim = decltype(red)::formula_dim;
  opt.stages = {st};
  opt.source = s;
  c.add(id, group, red, opt);
}

} // namespace

void add_string_cases(corpus& c) {
  // Classic kernels (x = Var(0,3,0), y = Var(1,3,1), b = Var(2,1,1), scale Var(3,1,2)).
  add_string<"Sum_Reduction(((IntCst(1)+Sqrt(IntCst(3)*SqDist(Var(0,3,0),Var(1,3,1))))*"
             "Exp(-Sqrt(IntCst(3)*SqDist(Var(0,3,0),Var(1,3,1)))))*Var(2,1,1),0)">(
      c, "str_matern32_kernel", "kernels", {.what = "Matern 3/2 kernel: Sqrt, SqDist, Exp"});
  add_string<"Sum_Reduction(Pow(IntCst(1)+(Var(0,3,0)|Var(1,3,1)),3)*Var(2,1,1),0)">(
      c, "str_polynomial_kernel", "kernels", {.what = "polynomial kernel: | (scalar product), Pow"});
  add_string<"Sum_Reduction(-Norm2(Var(0,3,0)-Var(1,3,1))*Var(2,1,1),0)">(
      c, "str_energy_kernel", "kernels", {.what = "energy distance kernel: Norm2"});
  add_string<"Sum_Reduction(Exp(-Var(3,1,2)*Norm2(Var(0,3,0)-Var(1,3,1)))*Var(1,3,1),1)">(
      c, "str_laplace_conv_axis_i", "kernels", {.what = "Laplace kernel reduced over i"});
  add_string<"Sum_Reduction(Rsqrt(IntCst(1)+Var(3,1,2)*SqDist(Var(0,3,0),Var(1,3,1)))*Var(2,1,1),0)">(
      c, "str_imq_kernel", "kernels", {.what = "inverse multiquadric kernel: Rsqrt"});
  // Reductions on strings.
  add_string<"ArgKMin_Reduction(SqDist(Var(0,3,0),Var(1,3,1)),4,0)">(c, "str_knn", "reductions",
                                                                     {.what = "K nearest neighbours (ArgKMin)"});
  add_string<"Max_Reduction(Var(0,3,0)*Var(1,3,1)-Abs(Var(2,1,1)),1)">(c, "str_max_axis_i", "reductions",
                                                                         {.what = "Max over i"});
  // KeOps' Grad in a formula: kops differentiates symbolically, KeOps by its autodiff.
  add_string<"Sum_Reduction(Grad(Exp(-SqDist(Var(0,3,0),Var(1,3,1)))*Var(2,1,1),Var(0,3,0),Var(4,1,0)),0)">(
      c, "str_grad_gauss_x", "gradients", {.what = "Grad of the Gaussian kernel w.r.t. x"});
  add_string<"Sum_Reduction(Grad(Clamp(Var(0,1,0),Var(1,1,1),Var(2,1,1)),Var(0,1,0),Var(3,1,0)),0)">(
      c, "str_grad_clamp_a_le_b", "gradients",
      {.what = "Grad of Clamp w.r.t. f, a <= b", .ranges = {{1, {-1.0, -0.3}}, {2, {0.3, 1.0}}}});
  add_string<"Sum_Reduction(Grad(Clamp(Var(0,1,0),Var(1,1,1),Var(2,1,1)),Var(0,1,0),Var(3,1,0)),0)">(
      c, "str_grad_clamp", "gradients",
      {.what = "Grad of Clamp w.r.t. f, a and b in [-1, 1] (a > b half of the time)",
       .note = "KeOps 2.3 differentiates Clamp(f,a,b) as ClampInt((f-a)/(b-a),0,1)*(b-a)+a: where a > b its "
               "derivative in f is 1 for b < f < a, where Clamp (a below a, then b above b) is the constant b; "
               "kops prints its own derivative (IfElse), which pykeops computes right",
       .expected = expect::keops_bug,
       .printed_expected = expect::agree});
  // KeOps's call spellings that kops's printer never writes (it prints the operators
  // and the expansions): each parsed by kops and run by pykeops as written.
  add_string<"Sum_Reduction(Divide(Add(Mult(Var(0,3,0),Var(1,3,1)),RatCst(1,3)),"
             "Subtract(IntCst(4),Scalprod(Var(0,3,0),Var(1,3,1)))),0)">(
      c, "str_call_spellings", "strings",
      {.what = "Add, Subtract, Mult, Divide as calls; Scalprod; RatCst",
       .note = "KeOps 2.3 writes RatCst(1,3) as the float 0.333333343 in float64 code (1e-8 off), as IntInv",
       .expected = expect::keops_bug,
       .known_bug_rtol = 1e-7});
  add_string<"Sum_Reduction(Concat(Concat(SqNorm2((Var(0,3,0)-Var(1,3,1))),SqNormIso(Var(3,1,2),Var(0,3,0))),"
             "Concat(SqNormDiag(Var(4,3,2),Var(1,3,1)),SymSqNorm(Var(5,9,2),(Var(0,3,0)-Var(1,3,1))))),0)">(
      c, "str_norms", "strings", {.what = "SqNorm2, SqNormIso, SqNormDiag, SymSqNorm"});
  add_string<"Sum_Reduction(Concat(Concat(WeightedSqNorm(Var(3,1,2),Var(0,3,0)),"
             "WeightedSqDist(Var(4,3,2),Var(0,3,0),Var(1,3,1))),Normalize((Var(0,3,0)+Var(1,3,1)))),0)">(
      c, "str_weighted_norms", "strings", {.what = "WeightedSqNorm, WeightedSqDist (diagonal), Normalize",
                                           .ranges = {{3, {0.5, 2.0}}, {4, {0.5, 2.0}}}});
  add_string<"Sum_Reduction(Concat(ElemT(Scalprod(Var(0,3,0),Var(1,3,1)),3,1),"
             "Factorize((Exp(Minus(SqDist(Var(0,3,0),Var(1,3,1))))*SqDist(Var(0,3,0),Var(1,3,1))),"
             "SqDist(Var(0,3,0),Var(1,3,1)))),0)">(c, "str_elem_t_factorize", "strings",
                                                   {.what = "ElemT, Factorize"});
  add_string<"Sum_Reduction(Concat(Concat(ComplexAbs(ComplexAdd(Var(0,4,0),Var(1,4,1))),"
             "ComplexAngle(ComplexSubtract(Var(0,4,0),Var(1,4,1)))),"
             "ComplexRealScal(ComplexDivide(Var(0,4,0),Var(1,4,1)),Var(2,1,1))),0)">(
      c, "str_complex_calls", "strings",
      {.what = "ComplexAbs, ComplexAngle, ComplexAdd, ComplexSubtract, ComplexDivide, ComplexRealScal",
       .ranges = {{1, {0.5, 2.0}}}});
  // Rational constants in float64 (KeOps rounds them to float).
  add_string<"Sum_Reduction(Var(0,3,0)*(IntCst(1)*IntInv(9)),0)">(
      c, "str_rational_ninth", "constants",
      {.what = "IntInv(9) in float64",
       .note = "KeOps 2.3 writes 1/9 as the float 0.111111112 (8e-10 off) in float64 code",
       .expected = expect::keops_bug,
       .known_bug_rtol = 1e-7});
  // softdtw_sqdist's gradient of variables (kops prints Grad(SoftDTW_SqDist(x,y,g),x,IntCst(1))).
  add_string<"Sum_Reduction(Grad(SoftDTW_SqDist(Var(0,3,0),Var(1,2,1),Var(2,1,2)),Var(0,3,0),Var(3,1,0)),0)">(
      c, "str_grad_softdtw_vars", "special",
      {.what = "Grad of SoftDTW_SqDist of variables",
       .note = "KeOps 2.3's SoftDTW_SqDist reads variable operands from the wrong rows on the CPU (its loop "
               "counters are named i and j): its gradient too",
       .ranges = {{2, {0.5, 1.0}}},
       .expected = expect::keops_bug});
}

} // namespace kops_conformance
