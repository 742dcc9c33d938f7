// The extension points between formulas and backends, as concepts:
//
//   MathProvider<Math, V>   what an op's apply calls: Math::exp(a), Math::pow(a, b), ...
//                           over values V (scalars on the GPU, SIMD packs on the CPU)
//   EvaluationContext<Ctx>  what a node's eval reads: the value type, the math
//                           provider, and load<C, I, D>() of variable I
//   SlotContext<Ctx, K, D>  a context that also answers slot<K, D>() (what a
//                           Factorized node adds for its shared sub-formula)
//
// (The reduction op's concept, ReductionOp, is in reductions/reduction.hpp; the
// backend's, Backend, in detail/dispatch.hpp.) tests/static/concepts.cpp checks
// that every backend's types model them, so that a missing member is an error
// there rather than deep inside a kernel's instantiation.
#pragma once

#include <concepts>
#include <cstdint>

#include <kops/core/formula.hpp>
#include <kops/core/variable.hpp>
#include <kops/core/vec.hpp>

namespace kops {

/// A math provider over values V: the element-wise functions ops apply
/// (core/scalar_math.hpp is the reference one), lane access, and the index
/// type that goes with V (one int64 per lane).
template <class Math, class V>
concept MathProvider = requires(const V& a, const V& b, std::int64_t j) {
  { Math::exp(a) } -> std::same_as<V>;
  { Math::exp2(a) } -> std::same_as<V>;
  { Math::log(a) } -> std::same_as<V>;
  { Math::sqrt(a) } -> std::same_as<V>;
  { Math::rsqrt(a) } -> std::same_as<V>;
  { Math::abs(a) } -> std::same_as<V>;
  { Math::sin(a) } -> std::same_as<V>;
  { Math::cos(a) } -> std::same_as<V>;
  { Math::asin(a) } -> std::same_as<V>;
  { Math::acos(a) } -> std::same_as<V>;
  { Math::atan(a) } -> std::same_as<V>;
  { Math::floor(a) } -> std::same_as<V>;
  { Math::round(a) } -> std::same_as<V>;
  { Math::atan2(a, b) } -> std::same_as<V>;
  { Math::pow(a, b) } -> std::same_as<V>;
  typename Math::template index_t<V>;
  { Math::template index<V>(j) } -> std::same_as<typename Math::template index_t<V>>;
  Math::lane(a, 0);
};

/// An evaluation context: what Formula::eval(ctx) reads. value_type is what a
/// node computes with (a scalar or a SIMD pack), scalar_type what the arrays
/// hold, math the provider (MathProvider over value_type), and load<C, I, D>()
/// the D components of variable I of category C at the current pair.
template <class Ctx>
concept EvaluationContext = requires(const Ctx& ctx) {
  typename Ctx::value_type;
  typename Ctx::scalar_type;
  typename Ctx::math;
  { ctx.template load<category::i, 0, 1>() } -> std::same_as<vec<typename Ctx::value_type, 1>>;
  { ctx.template load<category::j, 0, 2>() } -> std::same_as<vec<typename Ctx::value_type, 2>>;
  { ctx.template load<category::param, 0, 3>() } -> std::same_as<vec<typename Ctx::value_type, 3>>;
} && MathProvider<typename Ctx::math, typename Ctx::value_type>;

/// A context that answers the placeholder Slot<K, D> (core/factorize.hpp) too.
template <class Ctx, int K, int D>
concept SlotContext = EvaluationContext<Ctx> && requires(const Ctx& ctx) {
  { ctx.template slot<K, D>() } -> std::convertible_to<vec<typename Ctx::value_type, D>>;
};

} // namespace kops
