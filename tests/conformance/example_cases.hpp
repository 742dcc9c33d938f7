// Corpus cases that the C++ reader's example test (reader_test.cpp) evaluates
// again from the golden files: defined once here, used by the corpus
// (corpus_reductions.cpp) and by the test.
#pragma once

#include <kops/kops.hpp>

namespace kops_conformance::examples {

// Gaussian convolution: out_i = sum_j exp(-g |x_i - y_j|^2) b_j.
inline constexpr auto gauss_conv = kops::sum_reduction(
    kops::exp(-kops::pm<3, 1> * kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>)) * kops::vj<2, 2>, kops::axis_j);

// 3 nearest neighbours of each y_j among the x_i (reduction over i): values and indices.
inline constexpr auto knn_values_indices =
    kops::kmin_argkmin_reduction<3>(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_i);

// Gradient of a log-sum-exp w.r.t. a variable of the reduced axis (two passes).
inline constexpr auto lse_grad_y =
    kops::grad(kops::logsumexp_reduction(kops::dot(kops::vi<0, 3>, kops::vj<1, 3>) - kops::sqnorm2(kops::vj<1, 3>),
                                         kops::axis_j),
               kops::vj<1, 3>, kops::vi<2, 1>);

// The formulas of the op-gradient cases (corpus_ops.cpp, add_op_gradients): each
// op group in one formula, differentiated w.r.t. its variables. The gradients are
// also parsed from their KeOps strings (tests/common/keops_syntax_cases.hpp).
namespace op_gradients {
using namespace kops;
inline constexpr auto x = vi<0, 3>;
inline constexpr auto y = vj<1, 3>;
// inputs in (0.1, 0.9): inside every op's domain
inline constexpr auto elementwise =
    exp(x * y) + log(x + y) + sin(x - y) * cos(x + y) + sqrt(x * y) + rsqrt(x + y) + inv(y + x) + square(x - y) +
    pow<3>(x * y) + pow<-2>(x + y) + abs(x - y) + relu(x - y) + xlogx(x * y) + sinxdivx(x - y) + asin(x * y) +
    acos(x - y) + atan(x / y) + atan2(x, y) + clamp(x - y, -(x * y), x * y) + mod(cst<3> * x, y + cst<1>) +
    ifelse(x - y, x * x, y * y) + sign(x - y) + step(x - y) + floor(cst<3> * x) + round<1>(x) +
    clampint<0, 1>(cst<3> * x - cst<1>) + less_than(x, y) * x + less_or_equal(y, x) * y;
inline constexpr auto matrix = vj<2, 9>;  // 3 x 3, row-major
inline constexpr auto vector = concat(
    concat(concat(concat(norm2(x - y), normalize(x + y)), concat(sqnorm2(x * y), concat(dot(x, y), sqdist(x, y)))),
           concat(concat(concat(weighted_sqnorm(y, x), weighted_sqdist(pm<3, 9>, x, y)), concat(max(x * y), min(x - y))),
                  concat(concat(sum(x) * elem<1>(y), extract<1, 2>(x) * elem<0>(y)),
                         concat(concat(matvecmult(matrix, x), vecmatmult(x, matrix)),
                                concat(concat(tensorprod(x, y),
                                              tensordot<dims<3>, dims<3, 3>, axes<0>, axes<0>>(x, matrix)),
                                       kron<dims<3>, dims<3>>(x, y)))))),
    concat(concat(sum_t<3>(dot(x, y)), extract_t<1, 4>(x)),
           concat(concat(elem_t<3, 1>(elem<2>(x)), weighted_sqnorm(elem<0>(y), x)), one_hot<3>(elem<0>(x) * cst<3>))));
inline constexpr auto z = vi<0, 4>;  // 2 complex numbers
inline constexpr auto w = vj<1, 4>;
inline constexpr auto complex = concat(
    concat(concat(real(complex_mult(z, w)), imag(complex_divide(z, w))), concat(complex_abs(z - w), complex_angle(z))),
    concat(concat(complex_square_abs(complex_add(z, w)), conj(complex_subtract(z, w))),
           concat(concat(complex_exp(z - w), complex_exp1j(real(z))),
                  concat(concat(complex_sum(z), complex_sum_t<4>(complex_sum(w * z))),
                         concat(complex_real_scal(elem<0>(w), z), real2complex(imag(z)) + imag2complex(real(z)))))));
inline constexpr auto scale = pm<3, 1>;  // inverse squared scale c = 1 / sigma^2
inline constexpr auto b = vj<2, 3>;
inline constexpr auto kernels =
    concat(concat(concat(gauss_kernel(scale, x, y, b), cauchy_kernel(scale, x, y, b)),
                  concat(laplace_kernel(scale, x, y, b), inverse_multiquadric_kernel(scale, x, y, b))),
           concat(concat(divfree_gauss_kernel(scale, x, y, b), curlfree_gauss_kernel(scale, x, y, b)),
                  sum_gauss_kernel(pm<4, 2>, pm<5, 2>, x, y, b)));
} // namespace op_gradients

} // namespace kops_conformance::examples
