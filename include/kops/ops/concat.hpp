#pragma once

#include <kops/ops/add.hpp>
#include <kops/ops/extract.hpp>

namespace kops {

template <Formula A, Formula B>
struct Concat : formula_node {
  static constexpr int dim = A::dim + B::dim;
  static constexpr const char* name = "concat";
  static constexpr const char* keops_name = "Concat";
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = Concat<C1, C2>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < A::dim; ++k) r[k] = a[k];
    for (int k = 0; k < B::dim; ++k) r[A::dim + k] = b[k];
    return r;
  }
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(A{}, v, extract<0, A::dim>(g)) + grad(B{}, v, extract<A::dim, B::dim>(g));
  }
};

/// concat(a, b) = (a_0, ..., a_{Da-1}, b_0, ..., b_{Db-1}), dim Da + Db.
/// Derivative: [d_V concat(A, B)]^T g = [d_V A]^T extract<0, Da>(g) + [d_V B]^T extract<Da, Db>(g).
template <Formula A, Formula B>
constexpr Concat<A, B> concat(A, B) {
  return {};
}

namespace detail {
// concat_all(a, b, ...) = concat(a, concat(b, ...)): several formulas end to end
// (the gradient rules of reductions build their payloads with it).
template <Formula A> constexpr auto concat_all(A a) { return a; }
template <Formula A, Formula B, Formula... R> constexpr auto concat_all(A a, B b, R... r) {
  return concat(a, concat_all(b, r...));
}
} // namespace detail

} // namespace kops
