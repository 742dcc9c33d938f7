// The arguments of a solve's true-residual product (solve/cg.hpp: residual):
// that product is a reduction in double, so a float solve reads its arguments
// widened to double. for_each_solve_argument says which arrays the backend
// widens, and how many elements each holds.
#pragma once

#include <cstdint>

#include <kops/core/variables.hpp>
#include <kops/detail/arguments.hpp>

namespace kops::detail {

// f(index, elements) for each argument the reduction reads other than the
// unknown (slot Var, rebound to each vector K is applied to): elements =
// rows * dim, rows M for an i-variable, N for a j-variable, 1 for a parameter.
template <class Red, int Var, class F>
void for_each_solve_argument(std::int64_t M, std::int64_t N, F&& f) {
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!is_unused_slot_v<S>) {
        if constexpr (S::index != Var) {
          const std::int64_t rows = S::cat == category::i ? M : S::cat == category::j ? N : 1;
          f(S::index, rows * S::dim);
        }
      }
    }(), ...);
  }(typename Red::signature{});
}

} // namespace kops::detail
