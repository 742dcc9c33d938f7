// expect: kops::keops_formula: at column 1, `2.5` is a float literal, which keopscore 2.3 rejects
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"2.5*X", "X=Vi(3)">;
