#pragma once

#include <stdexcept>
#include <string>

namespace kops {

/// kops::error: every run-time failure kops reports (bad sizes, null pointers,
/// backend failures) is thrown as this type or a type derived from it.
class error : public std::runtime_error {
public:
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

} // namespace kops
