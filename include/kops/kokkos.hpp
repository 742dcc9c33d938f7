// The Kokkos CPU backend: kops::kokkos::eval(red, M, N, out, args...).
// Requires an initialised Kokkos (Kokkos::ScopeGuard in main).
#pragma once

#include <kops/kops.hpp>
#include <kops/backends/kokkos/eval.hpp>
#include <kops/backends/kokkos/solve.hpp>
#include <kops/backends/kokkos/tied.hpp>
#include <kops/solve/grad.hpp>
