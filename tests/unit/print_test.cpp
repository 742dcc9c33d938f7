// Formulas print themselves in kops spelling and in KeOps' syntax.
#include "test_support.hpp"

#include <kops/ops/softdtw_sqdist.hpp>

namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto f = kops::exp(-g * kops::sqdist(x, y)) * b;
} // namespace

TEST_CASE("to_string spells the simplified tree", "[print]") {
  CHECK(kops::to_string(x) == "vi<0,3>");
  CHECK(kops::to_string(g) == "pm<3,1>");
  CHECK(kops::to_string(f) == "(exp((sum(square((vi<0,3>-vj<1,3>)))*-pm<3,1>))*vj<2,1>)");
  CHECK(kops::to_string(kops::cst<1> / kops::cst<3> * x) == "((1/3)*vi<0,3>)");
  CHECK(kops::to_string(kops::pow<-3>(x)) == "pow<-3>(vi<0,3>)");
  CHECK(kops::to_string(kops::extract<1, 2>(x)) == "extract<1,2>(vi<0,3>)");
  CHECK(kops::to_string(kops::sum_t<3>(b)) == "sum_t<3>(vj<2,1>)");
  CHECK(kops::to_string(kops::concat(x, b)) == "concat(vi<0,3>,vj<2,1>)");
  CHECK(kops::to_string(kops::sum_reduction(f, kops::axis_j)) ==
        "sum_reduction((exp((sum(square((vi<0,3>-vj<1,3>)))*-pm<3,1>))*vj<2,1>), axis_j)");
  CHECK(kops::to_string(kops::argmin_reduction(x - y, kops::axis_i)) == "argmin_reduction((vi<0,3>-vj<1,3>), axis_i)");
}

TEST_CASE("to_keops_string writes KeOps formula syntax", "[print]") {
  CHECK(kops::to_keops_string(x) == "Var(0,3,0)");
  CHECK(kops::to_keops_string(y) == "Var(1,3,1)");
  CHECK(kops::to_keops_string(g) == "Var(3,1,2)");
  CHECK(kops::to_keops_string(f) ==
        "(Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2))))*Var(2,1,1))");
  CHECK(kops::to_keops_string(kops::cst<-2> * x) == "(IntCst(-2)*Var(0,3,0))");
  CHECK(kops::to_keops_string(kops::cst<1> / kops::cst<3> * x) == "((IntCst(1)*IntInv(3))*Var(0,3,0))");
  CHECK(kops::to_keops_string(kops::pow<3>(x)) == "Pow(Var(0,3,0),3)");
  CHECK(kops::to_keops_string(kops::sum_t<3>(b)) == "SumT(Var(2,1,1),3)");
  CHECK(kops::to_keops_string(kops::zero<2>) == "Zero(2)");
  CHECK(kops::to_keops_string(kops::extract<1, 2>(x)) == "Extract(Var(0,3,0),1,2)");
  CHECK(kops::to_keops_string(kops::extract_t<1, 5>(b)) == "ExtractT(Var(2,1,1),1,5)");
  CHECK(kops::to_keops_string(kops::concat(x, b)) == "Concat(Var(0,3,0),Var(2,1,1))");
  const auto conv = kops::sum_reduction(f, kops::axis_j);
  CHECK(kops::to_keops_string(conv) ==
        "Sum_Reduction((Exp((Sum(Square((Var(0,3,0)-Var(1,3,1))))*Minus(Var(3,1,2))))*Var(2,1,1)),0)");
  CHECK(kops::keops_reduction_op(conv) == "Sum");
  CHECK(kops::keops_axis(conv) == 1);
  CHECK(kops::keops_reduction_op(kops::argmin_reduction(x - y, kops::axis_i)) == "ArgMin");
  CHECK(kops::keops_axis(kops::argmin_reduction(x - y, kops::axis_i)) == 0);
}

// kops::keops_calls: the pykeops Genred calls of reductions KeOps has not as one
// (their numbers are checked against pykeops by the ctest conformance.pykeops:
// the "@printed" cases of tests/conformance/harness.py).
TEST_CASE("keops_calls declares the arguments a gradient no longer reads", "[print]") {
  const auto fwd = kops::sum_reduction(x + y, kops::axis_j);
  const auto d = kops::grad(fwd, x, kops::vi<2, 3>);  // d(x + y)/dx: reads only the input
  CHECK(kops::to_keops_string(d) == "Sum_Reduction(Var(2,3,0),0)");
  const auto calls = kops::keops_calls(d, kops::signature_t<decltype(fwd)::formula>{});
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].formula == "Extract(Concat(Var(2,3,0),Concat(Var(0,3,0),Var(1,3,1))),0,3)");
  CHECK(calls[0].reduction_op == "Sum");
  CHECK(calls[0].axis == 1);
}

TEST_CASE("keops_calls writes two-pass and kops-only reductions as several Genred calls", "[print]") {
  const auto lse = kops::logsumexp_reduction(kops::dot(x, y), kops::axis_j);
  // w.r.t. y (the reduced axis): LogSumExp, then a sum over i reading it as Var(3,1,0).
  const auto dy = kops::keops_calls(kops::grad(lse, y, kops::vi<2, 1>));
  REQUIRE(dy.size() == 2);
  CHECK(dy[0].reduction_op == "LogSumExp");
  CHECK(dy[0].axis == 1);
  CHECK(dy[0].formula == "Extract(Concat(Sum((Var(0,3,0)*Var(1,3,1))),Var(2,1,0)),0,1)");
  CHECK(dy[1].reduction_op == "Sum");
  CHECK(dy[1].axis == 0);
  CHECK(dy[1].formula.find("Var(3,1,0)") != std::string::npos);
  CHECK(kops::to_keops_string(kops::grad(lse, y, kops::vi<2, 1>)).find("_Reduction(Extract(Concat(Sum(") ==
        std::string("LogSumExp").size());
  // A weighted log-sum-exp w.r.t. x: L = LogSumExp(f, g), then Sum(sum_c Exp(f - L_c) * n_c).
  const auto wx = kops::keops_calls(
      kops::grad(kops::logsumexp_reduction(kops::dot(x, y), kops::vj<2, 2>, kops::axis_j), x, kops::vi<3, 2>));
  REQUIRE(wx.size() == 2);
  CHECK(wx[0].reduction_op == "LogSumExp");
  CHECK(wx[0].formula2.rfind("Extract(Concat(Var(2,2,1),", 0) == 0);
  CHECK(wx[0].out_dim == 2);
  CHECK(wx[1].formula.find("Elem(Var(4,2,0),1)") != std::string::npos);
  CHECK(wx[1].out_dim == 3);
  // sumsoftmaxweight w.r.t. x: L, <g . e>, then the sum; w.r.t. y: L and the softmax, then the sum.
  const auto ssw = kops::sumsoftmaxweight_reduction(kops::dot(x, y), kops::vj<2, 2>, kops::axis_j);
  const auto sx = kops::keops_calls(kops::grad(ssw, x, kops::vi<3, 2>));
  REQUIRE(sx.size() == 3);
  CHECK(sx[2].formula.find("Var(5,1,0)") != std::string::npos);
  const auto sy = kops::keops_calls(kops::grad(ssw, y, kops::vi<3, 2>));
  REQUIRE(sy.size() == 3);
  CHECK(sy[1].reduction_op == "SumSoftMaxWeight");
  CHECK(sy[2].formula.find("Concat(Var(4,1,0),Var(5,2,0))") != std::string::npos);
  // min w.r.t. x: Min, then the payload where the term equals it.
  const auto mx = kops::keops_calls(kops::grad(kops::min_reduction(kops::dot(x, y), kops::axis_j), x, kops::vi<2, 1>));
  REQUIRE(mx.size() == 2);
  CHECK(mx[0].reduction_op == "Min");
  CHECK(mx[1].formula.rfind("(Equal(Elem(Extract(", 0) == 0);
  CHECK(kops::to_keops_string(kops::grad(kops::min_reduction(kops::dot(x, y), kops::axis_j), x, kops::vi<2, 1>))
            .find("; Sum_Reduction(") != std::string::npos);
}

TEST_CASE("softdtw_sqdist's gradient of variables prints as KeOps' Grad", "[print]") {
  const auto s = kops::softdtw_sqdist(x, kops::vj<1, 2>, g);
  const auto d = kops::grad(s, x, kops::vi<4, 1>);
  CHECK(kops::to_keops_string(d) ==
        "(Extract(Concat(Grad(SoftDTW_SqDist(Var(0,3,0),Var(1,2,1),Var(3,1,2)),Var(0,3,0),IntCst(1)),"
        "Grad(SoftDTW_SqDist(Var(0,3,0),Var(1,2,1),Var(3,1,2)),Var(1,2,1),IntCst(1))),0,3)*Var(4,1,0))");
  // Of expressions: KeOps differentiates only w.r.t. variables; kops's node name.
  CHECK(kops::to_keops_string(kops::grad(kops::softdtw_sqdist(x + x, kops::vj<1, 2>, g), x, kops::vi<4, 1>))
            .find("GradSoftDTW_SqDist(") != std::string::npos);
}
