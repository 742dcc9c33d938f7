// kops::dims<N...>: a list of dimensions, as a type. tensordot reads it as the
// shape of a flat row-major tensor (ops/tensordot.hpp), with_dims as the
// dimensions one run-time argument may take (core/with_dim.hpp).
#pragma once

namespace kops {

/// A list of dimensions: a tensor's shape (tensordot), or the dimensions
/// compiled in for one run-time dimension (with_dims).
template <int... N>
struct dims {};

} // namespace kops
