// The formulas of the conformance corpus (tests/conformance/corpus_*.cpp) with their
// KeOps strings, for the tests of kops::keops_formula / keops_reduction
// (tests/static/keops_syntax.cpp: the string parses to the builders' type;
// tests/unit/keops_syntax_test.cpp: the parsed type prints the string again).
//
// The corpus builds its strings at run time (kops::to_keops_string of each case), so
// they were extracted once: a throwaway program printed to_keops_string of each
// builder expression below. The unit test prints them again at every run, so a
// change of the printer that this list misses fails there.
// Gradients of reductions (two passes, kops::Chained) have no KeOps string of their
// own and are not here; the formula-level derivatives (Grad, Diff, GradMatrix,
// Divergence, Laplacian) are.
#pragma once

#include <kops/kops.hpp>

namespace kops_test::keops_syntax {

using namespace kops;

// One case: the KeOps string S (Var(i,d,cat) variables, no aliases) and the value
// the C++ builders give, F.
template <kops::detail::fixed_string S, auto F>
struct keops_case {
  static constexpr auto keops = S;
  static constexpr auto formula = F;
};

inline constexpr auto x = vi<0, 3>;
inline constexpr auto y = vj<1, 3>;
inline constexpr auto b = vj<2, 1>;
inline constexpr auto p = pm<3, 1>;
inline constexpr auto x5 = vi<0, 5>;
inline constexpr auto y5 = vj<1, 5>;
inline constexpr auto z = vi<0, 4>;
inline constexpr auto w = vj<1, 4>;

// Formulas: the op groups of corpus_ops.cpp, and the calculus of corpus_reductions.cpp.
using formula_cases = kops::type_list<
    keops_case<"((((Var(0,3,0)-Var(1,3,1))*Var(0,3,0))/(IntCst(2)+Square(Var(1,3,1))))+(Var(0,3,0)*Var(2,1,1)))", ((x - y) * x / (y * y + cst<2>) - -(x * b))>,
    keops_case<"((((Var(0,3,0)+Var(2,1,1))*(Var(1,3,1)-Var(3,1,2)))/(IntCst(2)+Var(2,1,1)))+Var(3,1,2))", ((x + b) * (y - p) / (b + cst<2>) + p)>,
    keops_case<"((IntCst(5)*IntInv(7))+((IntCst(-2)*Var(1,3,1))+((IntCst(1)*IntInv(3))*Var(0,3,0))))", (x * (cst<1> / cst<3>) + cst<-2> * y + cst<5> / cst<7> + sum_t<3>(zero<1>) * b)>,
    keops_case<"((IntCst(7)+((IntCst(-2)*Var(0,3,0))*Var(1,3,1)))+(IntCst(3)*Var(2,1,1)))", (cst<-2> * x * y + cst<7> + cst<3> * b)>,
    keops_case<"((((Inv((IntCst(2)+Var(1,3,1)))+Square(Var(0,3,0)))+Pow((Var(0,3,0)-Var(1,3,1)),3))+Pow((IntCst(2)+Var(2,1,1)),-2))+Pow(Var(0,3,0),5))", (inv(y + cst<2>) + square(x) + pow<3>(x - y) + pow<-2>(b + cst<2>) + pow<5>(x))>,
    keops_case<"((Rsqrt((Var(0,3,0)+Var(1,3,1)))*Var(2,1,1))+(Rsqrt(Var(1,3,1))*Sqrt(Var(0,3,0))))", (sqrt(x) * rsqrt(y) + rsqrt(x + y) * b)>,
    keops_case<"(Powf(Var(0,3,0),(Var(1,3,1)-Var(2,1,1)))+Powf(Var(2,1,1),Var(0,3,0)))", (powf(x, y - b) + powf(b, x))>,
    keops_case<"((Exp(Minus(Sum(Square((Var(0,3,0)-Var(1,3,1))))))*Log((IntCst(2)+Var(2,1,1))))+Log((Exp(Var(0,3,0))+Square(Var(1,3,1)))))", (exp(-sqdist(x, y)) * log(b + cst<2>) + log(exp(x) + y * y))>,
    keops_case<"(Cos((IntCst(5)*(Var(0,3,0)*Var(1,3,1))))*Sin(((IntCst(3)*Var(0,3,0))-Var(1,3,1))))", (sin(cst<3> * x - y) * cos(x * y * cst<5>))>,
    keops_case<"(((Acos(Var(0,3,0))*Var(2,1,1))+Asin((Var(0,3,0)*Var(1,3,1))))+Atan((IntCst(4)*(Var(0,3,0)-Var(1,3,1)))))", (asin(x * y) + acos(x) * b + atan(cst<4> * (x - y)))>,
    keops_case<"(Atan2((Var(1,3,1)-Var(0,3,0)),Var(2,1,1))+Atan2(Var(0,3,0),Var(1,3,1)))", (atan2(x, y) + atan2(y - x, b))>,
    keops_case<"(SinXDivX((IntCst(4)*(Var(0,3,0)-Var(1,3,1))))+XLogX((Var(0,3,0)*Var(2,1,1))))", (xlogx(x * b) + sinxdivx(cst<4> * (x - y)))>,
    keops_case<"((((Sign((Var(0,3,0)-Var(1,3,1)))*Var(2,1,1))+Abs((Var(0,3,0)-Var(1,3,1))))+Step((Var(1,3,1)-Var(0,3,0))))+ReLU(((Var(0,3,0)+Var(1,3,1))-Var(2,1,1))))", (abs(x - y) + sign(x - y) * b + step(y - x) + relu(x + y - b))>,
    keops_case<"(Clamp((Var(0,3,0)+Var(1,3,1)),(Var(2,1,1)-IntCst(1)),Var(3,1,2))+ClampInt((IntCst(3)*(Var(0,3,0)-Var(1,3,1))),-1,1))", (clamp(x + y, b - cst<1>, p) + clampint<-1, 1>(cst<3> * (x - y)))>,
    keops_case<"(((Round((Var(0,3,0)*Var(1,3,1)),2)*Var(2,1,1))+Floor((IntCst(3)*(Var(0,3,0)-Var(1,3,1)))))+Round((IntCst(5)*Var(0,3,0)),0))", (floor(cst<3> * (x - y)) + round<2>(x * y) * b + round(cst<5> * x))>,
    keops_case<"(Mod((IntCst(4)*(Var(0,3,0)-Var(1,3,1))),(IntCst(2)+Var(2,1,1)),Var(3,1,2))+Mod((IntCst(7)*Var(0,3,0)),IntCst(2),IntCst(0)))", (mod(cst<4> * (x - y), b + cst<2>, p) + mod(cst<7> * x, cst<2>))>,
    keops_case<"IfElse((Var(0,3,0)-Var(1,3,1)),(Var(0,3,0)*Var(2,1,1)),Square(Var(1,3,1)))", (ifelse(x - y, x * b, y * y))>,
    keops_case<"Concat(Concat(Equal(Var(0,3,0),Var(1,3,1)),NotEqual(Var(0,3,0),Var(1,3,1))),Concat(LessThan(Var(0,3,0),Var(1,3,1)),LessOrEqual(Var(1,3,1),Var(0,3,0))))", (concat(concat(equal(x, y), not_equal(x, y)), concat(less_than(x, y), less_or_equal(y, x))))>,
    keops_case<"((Sum((Var(0,3,0)*Var(1,3,1)))*SumT(Var(2,1,1),3))+SumT(Sum(Var(0,3,0)),3))", (sum(x * y) * sum_t<3>(b) + sum_t<3>(sum(x)))>,
    keops_case<"Concat(Max((Var(0,5,0)-Var(1,5,1))),Min((Var(0,5,0)*Var(1,5,1))))", (concat(max(x5 - y5), min(x5 * y5)))>,
    keops_case<"(Concat(ArgMax((Var(0,5,0)-Var(1,5,1))),ArgMin((Var(0,5,0)*Var(1,5,1))))*Extract(Var(1,5,1),0,1))", (concat(argmax(x5 - y5), argmin(x5 * y5)) * elem<0>(y5))>,
    keops_case<"((Concat(Extract(Var(0,3,0),1,1),Extract(Var(1,3,1),1,2))*Var(2,1,1))+Extract(Var(1,3,1),2,1))", (concat(elem<1>(x), extract<1, 2>(y)) * b + elem<2>(y))>,
    keops_case<"(ExtractT((Var(0,3,0)*Var(1,3,1)),1,4)+ExtractT((Extract(Var(0,3,0),0,1)*Var(2,1,1)),2,4))", (elem_t<4, 2>(elem<0>(x) * b) + extract_t<1, 4>(extract<0, 3>(y) * x))>,
    keops_case<"(Extract(Var(1,5,1),0,1)*OneHot(Var(0,1,0),5))", (one_hot<5>(vi<0, 1>) * elem<0>(y5))>,
    keops_case<"Concat(Concat(Sum((Var(0,3,0)*Var(1,3,1))),Sum(Square((Var(0,3,0)-Var(1,3,1))))),Concat(Sqrt(Sum(Square((Var(0,3,0)+Var(1,3,1))))),Sum(Square((Var(0,3,0)-Var(1,3,1))))))", (concat(concat(dot(x, y), sqnorm2(x - y)), concat(norm2(x + y), sqdist(x, y))))>,
    keops_case<"((Var(0,3,0)-Var(1,3,1))*Rsqrt(Sum(Square((Var(0,3,0)-Var(1,3,1))))))", (normalize(x - y))>,
    keops_case<"Concat(Concat((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Var(2,1,2)),Sum((Square((Var(0,3,0)-Var(1,3,1)))*Var(3,3,2)))),Sum(((Var(0,3,0)+Var(1,3,1))*MatVecMult(Var(4,9,2),(Var(0,3,0)+Var(1,3,1))))))", (concat(concat(weighted_sqnorm(pm<2, 1>, x - y), weighted_sqnorm(pm<3, 3>, x - y)), weighted_sqnorm(pm<4, 9>, x + y)))>,
    keops_case<"Sum(((Var(0,3,0)-Var(1,3,1))*MatVecMult(Var(2,9,2),(Var(0,3,0)-Var(1,3,1)))))", (weighted_sqdist(pm<2, 9>, x, y))>,
    keops_case<"Concat(MatVecMult(Var(0,12,0),Var(1,4,1)),VecMatMult(Var(2,3,1),Var(0,12,0)))", (concat(matvecmult(vi<0, 12>, vj<1, 4>), vecmatmult(vj<2, 3>, vi<0, 12>)))>,
    keops_case<"TensorProd(Var(0,4,0),Var(1,3,1))", (tensorprod(vi<0, 4>, vj<1, 3>))>,
    keops_case<"Concat(TensorDot(Var(0,6,0),Var(1,12,1),[2,3],[4,3],[1],[1],[1,0]),TensorDot(Var(2,12,0),Var(3,6,1),[2,3,2],[3,2],[1,2],[0,1]))", (concat(tensordot<dims<2, 3>, dims<4, 3>, axes<1>, axes<1>, axes<1, 0>>(vi<0, 6>, vj<1, 12>), tensordot<dims<2, 3, 2>, dims<3, 2>, axes<1, 2>, axes<0, 1>>(vi<2, 12>, vj<3, 6>)))>,
    keops_case<"Concat(Kron(Var(0,4,0),Var(1,6,1),[2,2],[3,2]),TensorProd(Var(0,4,0),Var(2,2,1)))", (concat(kron<dims<2, 2>, dims<3, 2>>(vi<0, 4>, vj<1, 6>), kron<dims<4>, dims<2>>(vi<0, 4>, vj<2, 2>)))>,
    keops_case<"(BSpline(Var(2,10,2),Var(0,1,0),3)*Var(1,1,1))", (bspline<3>(pm<2, 10>, vi<0, 1>) * vj<1, 1>)>,
    keops_case<"SoftDTW_SqDist(Var(0,4,0),Var(1,3,1),Var(2,1,2))", (softdtw_sqdist(vi<0, 4>, vj<1, 3>, pm<2, 1>))>,
    keops_case<"Concat((ComplexImag(Var(1,4,1))*ComplexReal(Var(0,4,0))),((Imag2Complex(ComplexImag(Var(0,4,0)))+Real2Complex(ComplexReal(Var(1,4,1))))+Conj(Var(0,4,0))))", (concat(real(z) * imag(w), real2complex(real(w)) + imag2complex(imag(z)) + conj(z)))>,
    keops_case<"Concat(Concat(Sqrt(ComplexSquareAbs(Var(1,4,1))),ComplexSquareAbs(Var(0,4,0))),Atan2(ComplexImag(ComplexMult(Var(0,4,0),Var(1,4,1))),ComplexReal(ComplexMult(Var(0,4,0),Var(1,4,1)))))", (concat(concat(complex_abs(w), complex_square_abs(z)), complex_angle(complex_mult(z, w))))>,
    keops_case<"Concat(ComplexSum(ComplexMult(Var(0,4,0),Var(1,4,1))),ComplexSumT(ComplexSum(Var(1,4,1)),4))", (concat(complex_sum(complex_mult(z, w)), complex_sum_t<4>(complex_sum(w))))>,
    keops_case<"((((Var(0,4,0)+Var(1,4,1))+(Var(0,4,0)-Var(1,4,1)))+ComplexMult(ComplexMult(Conj(Var(1,4,1)),Var(0,4,0)),Real2Complex(Inv(ComplexSquareAbs(Var(1,4,1))))))+(Var(0,4,0)*Var(2,1,1)))", (complex_add(z, w) + complex_subtract(z, w) + complex_divide(z, w) + complex_real_scal(b, z))>,
    keops_case<"(ComplexExp1j(Var(1,2,1))+ComplexExp(Var(0,4,0)))", (complex_exp(z) + complex_exp1j(vj<1, 2>))>,
    keops_case<"(IntCst(2)*((Var(0,3,0)-Var(1,3,1))*SumT((((Var(4,1,0)*Var(2,1,1))*Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2)))))*Minus(Var(3,1,2))),3)))", (grad(exp(-p * sqdist(x, y)) * b, x, vi<4, 1>))>,
    keops_case<"((IntCst(-2)*((Var(0,3,0)-Var(1,3,1))*SumT(((((Sum(((IntCst(2)*Var(5,3,0))*(Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2)))*(Var(4,1,0)*Var(2,1,1)))*Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2)))))*Minus(Var(3,1,2))),3)))-((IntCst(2)*Var(5,3,0))*SumT((((Var(4,1,0)*Var(2,1,1))*Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2)))))*Minus(Var(3,1,2))),3)))", (grad(grad(exp(-p * sqdist(x, y)) * b, x, vi<4, 1>), y, vi<5, 3>))>,
    keops_case<"((Cos(Var(0,3,0))*Var(4,3,0))*Var(1,3,1))", (diff(sin(x) * y, x, vi<4, 3>))>,
    keops_case<"Concat((((ExtractT((ExtractT(IntCst(1),0,2)*Sum(Square((Var(0,3,0)-Var(1,3,1))))),0,3)*Var(1,3,1))*Cos(Var(0,3,0)))+(IntCst(2)*((Var(0,3,0)-Var(1,3,1))*SumT(Sum((Extract((Sin(Var(0,3,0))*Var(1,3,1)),0,2)*ExtractT(IntCst(1),0,2))),3)))),(((ExtractT((ExtractT(IntCst(1),1,2)*Sum(Square((Var(0,3,0)-Var(1,3,1))))),0,3)*Var(1,3,1))*Cos(Var(0,3,0)))+(IntCst(2)*((Var(0,3,0)-Var(1,3,1))*SumT(Sum((Extract((Sin(Var(0,3,0))*Var(1,3,1)),0,2)*ExtractT(IntCst(1),1,2))),3)))))", (grad_matrix(extract<0, 2>(sin(x) * y) * sqdist(x, y), x))>,
    keops_case<"((Extract(((ExtractT(IntCst(1),0,3)*Var(1,3,1))*Cos(Var(0,3,0))),0,1)+Extract(((ExtractT(IntCst(1),1,3)*Var(1,3,1))*Cos(Var(0,3,0))),1,1))+Extract(((ExtractT(IntCst(1),2,3)*Var(1,3,1))*Cos(Var(0,3,0))),2,1))", (divergence(sin(x) * y, x))>,
    keops_case<"((Extract(((IntCst(2)*ExtractT(IntCst(1),0,3))*SumT(IntCst(-1),3)),0,1)+Extract(((IntCst(2)*ExtractT(IntCst(1),1,3))*SumT(IntCst(-1),3)),1,1))+Extract(((IntCst(2)*ExtractT(IntCst(1),2,3))*SumT(IntCst(-1),3)),2,1))", (laplacian(dot(x, y) - sqnorm2(y), y))>,
    keops_case<"Exp2(Var(1,3,1))", (exp2(x) * zero<3> + exp2(y))>>;

// Reductions: those of corpus_reductions.cpp.
using reduction_cases = kops::type_list<
    keops_case<"Sum_Reduction((Exp(Minus(Sum(Square((Var(0,3,0)-Var(1,3,1))))))*Var(2,2,0)),1)", (sum_reduction(exp(-sqdist(x, y)) * vi<2, 2>, axis_i))>,
    keops_case<"Sum_Reduction((Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2))))*Var(2,2,1)),0)", (sum_reduction(exp(-pm<3, 1> * sqdist(vi<0, 3>, vj<1, 3>)) * vj<2, 2>, axis_j))>,
    keops_case<"Min_Reduction((Sin((IntCst(3)*(Var(0,3,0)*Var(1,3,1))))+Var(2,1,1)),0)", (min_reduction(sin(x * y * cst<3>) + vj<2, 1>, axis_j))>,
    keops_case<"Max_Reduction((Cos((Var(0,3,0)-Var(1,3,1)))*Var(2,1,0)),1)", (max_reduction(cos(x - y) * vi<2, 1>, axis_i))>,
    keops_case<"ArgMin_Reduction(Concat(Sum(Square((Var(0,3,0)-Var(1,3,1)))),Sum((Var(0,3,0)*Var(1,3,1)))),0)", (argmin_reduction(concat(sqdist(x, y), dot(x, y)), axis_j))>,
    keops_case<"ArgMax_Reduction(((Var(0,3,0)*Var(1,3,1))-Var(2,1,1)),0)", (argmax_reduction(x * y - vj<2, 1>, axis_j))>,
    keops_case<"Min_ArgMin_Reduction((Sum(Square((Var(0,3,0)-Var(1,3,1))))-Var(2,2,1)),0)", (min_argmin_reduction(sqdist(x, y) - vj<2, 2>, axis_j))>,
    keops_case<"Max_ArgMax_Reduction((Var(0,3,0)*Var(1,3,1)),1)", (max_argmax_reduction(x * y, axis_i))>,
    keops_case<"KMin_Reduction(Concat(Sum(Square((Var(0,3,0)-Var(1,3,1)))),Sum((Var(0,3,0)*Var(1,3,1)))),3,0)", (kmin_reduction<3>(concat(sqdist(x, y), dot(x, y)), axis_j))>,
    keops_case<"ArgKMin_Reduction(Sum(Square((Var(0,3,0)-Var(1,3,1)))),4,0)", (argkmin_reduction<4>(sqdist(x, y), axis_j))>,
    keops_case<"KMin_ArgKMin_Reduction(Sum(Square((Var(0,3,0)-Var(1,3,1)))),3,1)", (kmin_argkmin_reduction<3>(sqdist(vi<0, 3>, vj<1, 3>), axis_i))>,
    keops_case<"LogSumExp_Reduction((Sum((Var(0,3,0)*Var(1,3,1)))-Sum(Square(Var(1,3,1)))),0)", (logsumexp_reduction(dot(x, y) - sqnorm2(y), axis_j))>,
    keops_case<"LogSumExp_Reduction((Sum((Var(0,3,0)*Var(1,3,1)))-Sum(Square(Var(1,3,1)))),0,Var(2,2,1))", (logsumexp_reduction(dot(x, y) - sqnorm2(y), vj<2, 2>, axis_j))>,
    keops_case<"SumSoftMaxWeight_Reduction((Sum((Var(0,3,0)*Var(1,3,1)))-Sum(Square(Var(1,3,1)))),0,Var(2,3,1))", (sumsoftmaxweight_reduction(dot(x, y) - sqnorm2(y), vj<2, 3>, axis_j))>,
    keops_case<"SumSoftMaxWeight_Reduction(Minus(Sum(Square((Var(0,3,0)-Var(1,3,1))))),1,Var(2,2,0))", (sumsoftmaxweight_reduction(-sqdist(x, y), vi<2, 2>, axis_i))>>;

} // namespace kops_test::keops_syntax
