// Irrational constants (dim 1): NamedConst<Tag> evaluates Tag::value rounded
// once to the context's scalar type. Invariant, but not folded with the exact
// rational constants.
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

template <class Tag>
struct NamedConst : formula_node {
  static constexpr int dim = 1;
  using children = type_list<>;
  using tag = Tag;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    constexpr auto v = static_cast<typename Ctx::scalar_type>(Tag::value);  // rounded at compile time
    return vec<V, 1>{{V(v)}};
  }
};

struct log2e_tag {
  static constexpr long double value = 1.44269504088896340735992468100189214L;
  static constexpr const char* name = "log2(e)";
  static constexpr const char* keops_name = "1.4426950408889634";
};
struct ln2_tag {
  static constexpr long double value = 0.693147180559945309417232121458176568L;
  static constexpr const char* name = "ln(2)";
  static constexpr const char* keops_name = "0.6931471805599453";
};

inline constexpr NamedConst<log2e_tag> log2e{};
inline constexpr NamedConst<ln2_tag> ln2{};

} // namespace kops
