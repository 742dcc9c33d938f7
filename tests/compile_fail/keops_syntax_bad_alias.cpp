// expect: kops::keops_formula: in alias 2 `Y=Vk\(3\)`, at column 3, `Vk` is not a variable type
// errors: 1
#include <kops/kops.hpp>
constexpr auto f = kops::keops_formula<"X+Y", "X=Vi(3)", "Y=Vk(3)">;
