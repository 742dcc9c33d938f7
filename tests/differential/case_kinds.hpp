// What a generated case (tests/differential/cases/) is checked against.
#pragma once

namespace kops_diff {

/// A forward case: the double reference evaluation of the same reduction.
struct forward {};

/// A gradient case kops::grad(R, V, e): central finite differences of the
/// double reference evaluation of R with respect to the variable V.
template <class R, class V>
struct fd_of {
  using reduction = R;
  using variable = V;
};

template <class R, class V>
constexpr fd_of<R, V> fd(R, V) {
  return {};
}

} // namespace kops_diff
