// static_assert-only tests: a two-pass reduction's temporary as the passes
// carry it (detail/storage.hpp, temporary_slot). Its values are compute_t<T>
// (float for kops::half / kops::bfloat16), passed as const T* and stepped in T
// elements; what the backends step over in T elements (a batch's stride, an
// output chunk's offset) must be the bytes of the values it stands for, and
// what load_arg reads back must be the values' type.
#include <kops/detail/storage.hpp>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace {
using kops::detail::compute_t;
using kops::detail::temporary_slot;

// The values: float for the 16-bit types, the type itself otherwise.
static_assert(std::is_same_v<temporary_slot<kops::half>::value_type, float>);
static_assert(std::is_same_v<temporary_slot<kops::bfloat16>::value_type, float>);
static_assert(std::is_same_v<temporary_slot<float>::value_type, float>);
static_assert(std::is_same_v<temporary_slot<double>::value_type, double>);

// n values span 2n elements of a 16-bit T, n of float or double.
static_assert(temporary_slot<kops::half>::t_elements(5) == 10 && temporary_slot<kops::bfloat16>::t_elements(5) == 10);
static_assert(temporary_slot<float>::t_elements(5) == 5 && temporary_slot<double>::t_elements(5) == 5);
static_assert(temporary_slot<kops::half>::t_elements(0) == 0 && temporary_slot<kops::half>::t_elements(1) == 2);

// ... which is the values' bytes: batch b's values at b * n of them are what a
// backend reaches at b * t_elements(n) T elements, for every n.
template <class T>
constexpr bool same_bytes() {
  for (std::int64_t n : std::array<std::int64_t, 5>{0, 1, 3, 64, 1000003})
    if (temporary_slot<T>::t_elements(n) * std::int64_t(sizeof(T)) != n * std::int64_t(sizeof(compute_t<T>)))
      return false;
  return true;
}
static_assert(same_bytes<kops::half>() && same_bytes<kops::bfloat16>() && same_bytes<float>() && same_bytes<double>());

// The pointers: the buffer goes in as a const T* argument and comes back as
// the values load_arg reads.
template <class T>
constexpr bool round_trip_types =
    std::is_same_v<decltype(temporary_slot<T>::pointer(std::declval<const compute_t<T>*>())), const T*> &&
    std::is_same_v<decltype(temporary_slot<T>::values(std::declval<const T*>())), const compute_t<T>*>;
static_assert(round_trip_types<kops::half> && round_trip_types<kops::bfloat16> && round_trip_types<float> &&
              round_trip_types<double>);
} // namespace
