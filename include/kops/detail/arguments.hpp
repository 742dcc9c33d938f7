// Argument handling shared by the backends: element type deduction, run-time
// checks of sizes and pointers, and the layout of row-variable tiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <kops/core/error.hpp>
#include <kops/core/variables.hpp>

namespace kops::detail {

template <class T, class... Ts>
struct common_element {
  static_assert((std::is_same_v<std::remove_cv_t<T>, std::remove_cv_t<Ts>> && ...),
                "kops::eval: all argument pointers must have the same element type");
  using type = std::remove_cv_t<T>;
  static_assert(std::is_same_v<type, float> || std::is_same_v<type, double>,
                "kops::eval: arguments must be float or double arrays");
};
template <class... Ts> using common_element_t = typename common_element<Ts...>::type;

// The element type of a call: that of its arguments, or, for a formula that
// reads no variable, that of its output.
template <class Out, class... Ts> struct call_element : common_element<Ts...> {};
template <class Out> struct call_element<Out> : common_element<Out> {};
template <class Out, class... Ts> using call_element_t = typename call_element<Out, Ts...>::type;

template <class S> inline constexpr bool is_unused_slot_v = false;
template <int I> inline constexpr bool is_unused_slot_v<Unused<I>> = true;

inline std::string variable_name(category c, int index, int dim) {
  const char* b = c == category::i ? "vi" : c == category::j ? "vj" : "pm";
  return std::string(b) + "<" + std::to_string(index) + "," + std::to_string(dim) + ">";
}

// Sum of the dims of the slots of category C (the rows of a tile).
template <class Sig, category C> struct row_dims_impl;
template <category C, class... S>
struct row_dims_impl<type_list<S...>, C> {
  static constexpr int value = (0 + ... + [] {
    if constexpr (is_unused_slot_v<S>) return 0;
    else return S::cat == C ? S::dim : 0;
  }());
};
template <class Sig, category C>
constexpr int row_dims() { return row_dims_impl<Sig, C>::value; }

// Offset (in components) of argument I within the tile of category C.
template <class Sig, category C, int I> struct row_offset_impl;
template <category C, int I, class... S>
struct row_offset_impl<type_list<S...>, C, I> {
  static constexpr int value = (0 + ... + [] {
    if constexpr (is_unused_slot_v<S>) return 0;
    else return (S::cat == C && S::index < I) ? S::dim : 0;
  }());
};
template <class Sig, category C, int I>
constexpr int row_offset() { return row_offset_impl<Sig, C, I>::value; }

// tile[(offset_I + k) * L + l] = arg_I[row0 + l, k] for the slots of category C;
// lanes past `valid` repeat the last valid row so that every lane computes
// finite, harmless values.
template <class Sig, category C, int L, class T>
void fill_tile(T* tile, const T* const* args, std::int64_t row0, int valid) {
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!is_unused_slot_v<S>) {
        if constexpr (S::cat == C) {
          constexpr int D = S::dim, off = row_offset<Sig, C, S::index>();
          const T* src = args[S::index];
          for (int l = 0; l < L; ++l) {
            const T* row = src + (row0 + std::min(l, valid - 1)) * D;
            for (int k = 0; k < D; ++k) tile[(off + k) * L + l] = row[k];
          }
        }
      }
    }(), ...);
  }(Sig{});
}

// Run-time checks common to every backend's eval. Throws kops::error naming the
// function (`where`) and the offending argument.
template <class Red, class T, class Out>
void check_arguments(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                     const T* const* args) {
  const std::string w = where;
  if (M < 0) throw error(w + ": M (the number of i rows) must be >= 0, got " + std::to_string(M));
  if (N < 0) throw error(w + ": N (the number of j rows) must be >= 0, got " + std::to_string(N));
  const std::int64_t rows = Red::row_cat == category::i ? M : N;
  if (rows > 0 && out == nullptr) throw error(w + ": the output pointer is null");
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!is_unused_slot_v<S>) {
        const std::int64_t n = S::cat == category::i ? M : S::cat == category::j ? N : 1;
        if (n > 0 && args[S::index] == nullptr)
          throw error(w + ": argument " + std::to_string(S::index) + " (" +
                      variable_name(S::cat, S::index, S::dim) + ") is a null pointer");
      }
    }(), ...);
  }(typename Red::signature{});
}

} // namespace kops::detail
