// Lowering: the formula a backend evaluates for a reduction, from the one the
// user wrote. The pipeline, in order:
//
//   precision::fast      every node whose op declares fast_form(operands...)
//                        is replaced by it, bottom up (exp(a) -> exp2(a log2 e))
//   factorization        repeated expensive sub-formulas evaluated once
//                        (core/factorize.hpp: auto_factorize_t)
//   target forms         on a backend whose math provider has exp_scaled
//                        (Target::exp_scaled), under precision::accurate, every
//                        node whose op declares scaled_form(operands...) is
//                        replaced by it (exp(a b), b invariant -> exp_scaled(a, b))
//
// and, last, applied by each backend with its own threshold, chunking of wide
// sums over coordinates (lowering/chunk.hpp: chunked_t).
//
// The rules live with their ops (ops/exp.hpp); this file only walks trees, and
// names no op. Backends call policy_formula_t and see only another formula.
#pragma once

#include <type_traits>

#include <kops/core/factorize.hpp>
#include <kops/core/formula.hpp>
#include <kops/core/precision.hpp>

namespace kops {

/// rewrite_t<F, Rule>: F rebuilt bottom up, every node N (its operands already
/// rewritten) replaced by Rule::apply<N> (N itself where the rule does not
/// apply). Generic over node kinds: a node with operands rebuilds itself over
/// new ones through its `rebind` alias.
template <class F, class Rule> struct rewrite;
template <class F, class Rule> using rewrite_t = typename rewrite<F, Rule>::type;

namespace detail {
template <class F, class Rule, class... C>
auto rewrite_operands(type_list<C...>) -> rebind_t<F, type_list<rewrite_t<C, Rule>...>>;
template <class F, class Rule, bool Leaf = (F::children::size == 0)> struct rewrite_below {
  using type = F;
};
template <class F, class Rule> struct rewrite_below<F, Rule, false> {
  using type = decltype(rewrite_operands<F, Rule>(typename F::children{}));
};

// The lowering forms an op may declare: Form::of<N>(operands) is the form of
// node N over its (lowered) operands, ill-formed when N's op declares none.
struct fast_form {
  template <class N, class... C> static auto of(type_list<C...>) -> decltype(N::op::fast_form(C{}...));
};
struct scaled_form {
  template <class N, class... C> static auto of(type_list<C...>) -> decltype(N::op::scaled_form(C{}...));
};
// The rule that replaces each node by its op's Form, where it has one.
template <class Form>
struct form_rule {
  template <class N> static auto pick() {
    if constexpr (requires { Form::template of<N>(typename N::children{}); })
      return std::type_identity<decltype(Form::template of<N>(typename N::children{}))>{};
    else return std::type_identity<N>{};
  }
  template <class N> using apply = typename decltype(pick<N>())::type;
};
using fast_form_rule = form_rule<fast_form>;
using scaled_form_rule = form_rule<scaled_form>;
} // namespace detail

template <class F, class Rule> struct rewrite {
  using type = typename Rule::template apply<typename detail::rewrite_below<F, Rule>::type>;
};

/// F with every exp(a) replaced by exp2(a log2 e), log2 e grouped with a's
/// invariant factors (what the fast policy evaluates).
template <Formula F>
using fast_exp_t = rewrite_t<F, detail::fast_form_rule>;

/// The formula a backend evaluates for a reduction, precision policy aside:
/// its formula, factorized.
template <class Red>
using evaluated_formula_t = auto_factorize_t<typename Red::formula>;

/// What a backend's math provider offers beyond what every provider has; a
/// backend passes its own type with the same member to policy_formula_t.
struct generic_target {
  static constexpr bool exp_scaled = false;  // Math::exp_scaled(a, b) = e^(a b), product unrounded
};

/// The formula a backend evaluates for a reduction under a precision policy
/// (the pipeline of this file's header comment). Specialisations rather than
/// std::conditional_t: only the chosen rewrite is instantiated.
template <class Red, precision P, class Target = generic_target, bool Scaled = Target::exp_scaled>
struct policy_formula {
  using type = evaluated_formula_t<Red>;
};
template <class Red, class Target, bool Scaled>
struct policy_formula<Red, precision::fast, Target, Scaled> {
  using type = auto_factorize_t<fast_exp_t<typename Red::formula>>;
};
template <class Red, class Target>
struct policy_formula<Red, precision::accurate, Target, true> {
  using type = rewrite_t<evaluated_formula_t<Red>, detail::scaled_form_rule>;
};
template <class Red, precision P, class Target = generic_target>
using policy_formula_t = typename policy_formula<Red, P, Target>::type;

} // namespace kops
