// One case of the oracle (kops_add_oracle, cmake/kops_add_oracle.cmake): the
// generated translation unit of a case defines its reduction from the KeOps
// string (kops::keops_reduction, parsed at compile time) and returns its entry:
//
//   constexpr auto red = kops::keops_reduction<"Sum_Reduction(...,0)", "G=Pm(1)", ...>;
//   const kops::oracle::case_entry& kops_oracle_case_0() {
//     static const auto c = kops::oracle::make_case<red, float>("gauss", "Sum_Reduction(...,0)", "G=Pm(1) ...");
//     return c;
//   }
//
// make_case reads the arguments' categories and dims and the output's from the
// reduction's type (kops::detail::call_info_of); run<Red, T> evaluates it with
// kops::kokkos::eval on the files io/oracle_cli.hpp's load() read and checked, and
// writes the output: values as T, indices as int64, value-and-index
// reductions as two files (values, indices), each of shape (rows, dim).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kops/io/keops_syntax.hpp>
#include <kops/io/oracle_cli.hpp>
#include <kops/kokkos.hpp>

namespace kops::oracle {

namespace detail {

template <class Out, class T>
constexpr output_kind output_kind_of() {
  if constexpr (std::is_same_v<Out, T>) return output_kind::values;
  else if constexpr (std::is_same_v<Out, std::int64_t>) return output_kind::indices;
  else return output_kind::values_and_indices;
}

inline char cat_char(kops::category c) { return c == kops::category::i ? 'i' : c == kops::category::j ? 'j' : 'p'; }

} // namespace detail

/// Evaluates the case on the loaded arguments and writes its output file(s).
template <const auto& Red, class T>
void run(const case_entry& c, const loaded& in, std::span<const std::string> outputs) {
  using R = std::remove_cvref_t<decltype(Red)>;
  using Out = typename R::op::template out_t<T>;
  const std::int64_t rows = c.out_cat == 'i' ? in.M : in.N;
  const std::int64_t shape[2] = {rows, R::dim};
  std::vector<Out> out(std::size_t(rows * R::dim));
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    kops::kokkos::eval(Red, in.M, in.N, out.data(), reinterpret_cast<const T*>(in.args[K].bytes.data())...);
  }(std::make_index_sequence<std::size_t(R::nargs)>{});
  if constexpr (std::is_same_v<Out, T> || std::is_same_v<Out, std::int64_t>) {
    npy::write(outputs[0], std::span<const Out>(out), shape);
  } else {
    std::vector<T> values(out.size());
    std::vector<std::int64_t> indices(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      values[k] = out[k].value;
      indices[k] = out[k].index;
    }
    npy::write(outputs[0], std::span<const T>(values), shape);
    npy::write(outputs[1], std::span<const std::int64_t>(indices), shape);
  }
}

/// The entry of a case: `Red` (a kops::keops_reduction) on T (float, double) arrays.
template <const auto& Red, class T>
case_entry make_case(const char* name, const char* reduction, const char* aliases) {
  using R = std::remove_cvref_t<decltype(Red)>;
  const kops::detail::call_info& info = kops::detail::call_info_of<R>::value;
  case_entry c{name, reduction, aliases, npy::dtype_of<T>::value, {}, detail::cat_char(R::row_cat), R::dim,
               detail::output_kind_of<typename R::op::template out_t<T>, T>(), &run<Red, T>};
  for (int k = 0; k < info.nslots; ++k) {
    const kops::detail::slot_info& s = info.slots[k];
    c.args.push_back({detail::cat_char(s.cat), s.dim, s.used});
  }
  // Trailing aliases the formula does not read are arguments too, as in pykeops.
  while (int(c.args.size()) < alias_argument_count(c.aliases)) c.args.push_back({'p', 0, false});
  return c;
}

} // namespace kops::oracle
