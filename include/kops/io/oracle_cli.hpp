// The oracle's command line (kops_add_oracle, cmake/kops_add_oracle.cmake;
// docs/conformance.md "For JIT-engine authors: the oracle"):
//
//   my_oracle --list                                        the cases, the files each run takes
//   my_oracle run <case> <out.npy> <arg0.npy> <arg1.npy> ...
//   my_oracle run <case> <values.npy> <indices.npy> <arg0.npy> ...   (Min_ArgMin, Max_ArgMax, KMin_ArgKMin)
//
// This file is what every case shares and what main() needs: the case table's
// entries (case_entry: the strings, the arguments' categories and dims, the
// output's), reading and checking the argument files (load: one per argument
// index, in the order pykeops takes them, each of the case's dtype and of the
// shape its variable asks for -- (rows, dim) or, for dim 1, (rows,); a parameter
// (dim,) -- with M and N deduced from the first i and j variables), and main().
// The run function of a case, where the formula is a type and the kernel is
// compiled, is in kops/oracle.hpp: one generated translation unit per case.
// (The oracle is built with exceptions: main() prints a kops::error's message.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <kops/core/error.hpp>
#include <kops/io/npy.hpp>

/// kops_add_oracle's executables (docs/conformance.md, "For JIT-engine
/// authors: the oracle"): the case table and the command line.
namespace kops::oracle {

/// What a case's output is: values (T), indices (int64: ArgMin, ArgMax,
/// ArgKMin), or both (Min_ArgMin, Max_ArgMax, KMin_ArgKMin: two files).
enum class output_kind { values, indices, values_and_indices };

/// One argument of a case: its category ('i', 'j', 'p'), its dim, and whether
/// the formula reads it (an alias the formula does not use is still an
/// argument, as in pykeops, and its file is read but not checked).
struct argument_info {
  char cat;
  int dim;
  bool used;
};

struct loaded;

/// One case of the oracle: a line of the formula file, and its run function.
struct case_entry {
  std::string name, reduction, aliases;
  npy::dtype type;
  std::vector<argument_info> args;
  char out_cat;  // 'i' (axis 0: one row per i) or 'j'
  int out_dim;
  output_kind out;
  void (*run)(const case_entry&, const loaded&, std::span<const std::string> outputs);
};

/// The arguments of a run, read and checked, with M and N.
struct loaded {
  std::vector<npy::array> args;
  std::int64_t M = -1, N = -1;
};

/// "(M, 3)", "(N, 1)", "(2,)": the shape an argument or output file must have.
inline std::string expected_shape(char cat, int dim) {
  if (cat == 'p') return "(" + std::to_string(dim) + ",)";
  return std::string("(") + (cat == 'i' ? "M" : "N") + ", " + std::to_string(dim) + ")";
}

/// Number of output files of a case.
inline int output_files(const case_entry& c) { return c.out == output_kind::values_and_indices ? 2 : 1; }

/// The number of arguments pykeops takes for `aliases` ("G=Pm(1) X=Vi(3)", or
/// "X=Vi(0,3)", "X=Var(0,3,0)"): one past the largest index, an alias without
/// one counting by its place. It may exceed the reduction's argument count when
/// the last aliases are not read by the formula.
inline int alias_argument_count(const std::string& aliases) {
  int count = 0, place = 0;
  for (std::size_t at = 0; at < aliases.size();) {
    const std::size_t end = std::min(aliases.find(' ', at), aliases.size());
    const std::string a = aliases.substr(at, end - at);
    at = end + 1;
    if (a.empty()) continue;
    const std::size_t open = a.find('(');
    const bool indexed = open != std::string::npos && a.find(',', open) != std::string::npos;
    const int index = indexed ? std::atoi(a.c_str() + open + 1) : place;
    count = std::max(count, index + 1);
    ++place;
  }
  return count;
}

/// The `run` line of a case, with each file's shape: what --list prints.
inline std::string usage_line(const case_entry& c) {
  const std::string shape = expected_shape(c.out_cat, c.out_dim);
  std::string s = "run " + c.name;
  if (c.out == output_kind::values_and_indices)
    s += std::string(" <values ") + shape + " " + npy::name(c.type) + "> <indices " + shape + " int64>";
  else
    s += std::string(" <out ") + shape + " " + (c.out == output_kind::indices ? "int64" : npy::name(c.type)) + ">";
  for (std::size_t k = 0; k < c.args.size(); ++k)
    s += " <arg" + std::to_string(k) + " " + (c.args[k].used ? expected_shape(c.args[k].cat, c.args[k].dim) : "unused") +
         ">";
  return s;
}

/// Reads the argument files of a run of `c` and checks them: their count, their
/// dtype (the case's), their shapes, the rows of every i (j) variable equal (M, N).
inline loaded load(const case_entry& c, std::span<const std::string> files) {
  loaded in;
  if (files.size() != c.args.size()) {
    kops::detail::fail("kops::oracle: case %s takes %zu argument files, given %zu (%s)", c.name.c_str(),
                       c.args.size(), files.size(), usage_line(c).c_str());
    return in;
  }
  std::string from[2];  // where M and N came from
  for (std::size_t k = 0; k < files.size(); ++k) {
    in.args.push_back(npy::read(files[k]));
    const argument_info& a = c.args[k];
    if (!a.used) continue;
    const npy::array& f = in.args.back();
    const std::string want = expected_shape(a.cat, a.dim), got = npy::shape_string(f.shape);
    const char* file = files[k].c_str();
    if (f.type != c.type) {
      kops::detail::fail("kops::oracle: case %s, argument %zu: %s holds %s values, expected %s", c.name.c_str(), k,
                         file, npy::name(f.type), npy::name(c.type));
      return in;
    }
    const std::size_t rank = f.shape.size();
    std::int64_t rows = -1;
    if (a.cat == 'p') {
      const bool ok = (rank == 1 && f.shape[0] == a.dim) || (rank == 2 && f.shape[0] == 1 && f.shape[1] == a.dim);
      if (!ok) {
        kops::detail::fail("kops::oracle: case %s, argument %zu: %s has shape %s, expected %s (a parameter)",
                           c.name.c_str(), k, file, got.c_str(), want.c_str());
        return in;
      }
      continue;
    }
    if (rank == 2 && f.shape[1] == a.dim) rows = f.shape[0];
    else if (rank == 1 && a.dim == 1) rows = f.shape[0];
    if (rows < 0) {
      kops::detail::fail("kops::oracle: case %s, argument %zu: %s has shape %s, expected %s", c.name.c_str(), k, file,
                         got.c_str(), want.c_str());
      return in;
    }
    const int axis = a.cat == 'i' ? 0 : 1;
    std::int64_t& n = axis == 0 ? in.M : in.N;
    if (n < 0) {
      n = rows;
      from[axis] = files[k];
    } else if (rows != n) {
      kops::detail::fail("kops::oracle: case %s, argument %zu: %s has %lld rows, expected %c = %lld (from %s)",
                         c.name.c_str(), k, file, (long long)rows, axis == 0 ? 'M' : 'N', (long long)n,
                         from[axis].c_str());
      return in;
    }
  }
  if (in.M < 0 || in.N < 0)
    kops::detail::fail("kops::oracle: case %s reads no %s variable, so %c cannot be deduced from its arguments "
                       "(the oracle takes no sizes: add a variable of that axis to the formula)",
                       c.name.c_str(), in.M < 0 ? "i" : "j", in.M < 0 ? 'M' : 'N');
  return in;
}

/// Prints the oracle's command line (`self`: its name) to `to`; returns 2,
/// the exit status of a wrong command line.
inline int usage(const char* self, std::FILE* to) {
  std::fprintf(to,
               "usage: %s --list                                   the cases, the files each run takes\n"
               "       %s run <case> <out.npy> <arg0.npy> ...      evaluate a case on the CPU (kops::kokkos)\n"
               "A value-and-index reduction (Min_ArgMin, Max_ArgMax, KMin_ArgKMin) writes two files:\n"
               "       %s run <case> <values.npy> <indices.npy> <arg0.npy> ...\n"
               "Arguments in variable-index order, as pykeops takes them; indices are written as int64.\n",
               self, self, self);
  return 2;
}

/// The oracle's main(): Kokkos initialised around it (--kokkos-* arguments are
/// Kokkos'), a failure printed on stderr with exit status 1, a wrong command
/// line with the usage and status 2.
inline int main(int argc, char** argv, std::span<const case_entry* const> cases) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const char* self = argc > 0 ? argv[0] : "oracle";
  const std::vector<std::string> a(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (a.size() == 1 && (a[0] == "--help" || a[0] == "-h")) {
    usage(self, stdout);
    return 0;
  }
  if (a.size() == 1 && a[0] == "--list") {
    for (const case_entry* c : cases)
      std::printf("%s: %s %s with %s\n  %s\n", c->name.c_str(), npy::name(c->type), c->reduction.c_str(),
                  c->aliases.c_str(), usage_line(*c).c_str());
    return 0;
  }
  if (a.size() < 3 || a[0] != "run") return usage(self, stderr);
  // (Built without exceptions, a failure goes to kops::set_error_handler's
  // handler, whose default prints it and aborts.)
#if KOPS_EXCEPTIONS
  try {
#endif
    if (std::find(a.begin(), a.end(), "--gpu") != a.end())
      kops::detail::fail("kops::oracle: --gpu: this oracle runs the CPU backend only (kops_add_oracle builds no GPU "
                         "variant yet)");
    const case_entry* c = nullptr;
    for (const case_entry* e : cases)
      if (e->name == a[1]) c = e;
    if (c == nullptr) {
      std::string names;
      for (const case_entry* e : cases) names += (names.empty() ? "" : ", ") + e->name;
      kops::detail::fail("kops::oracle: no case named '%s', expected one of: %s", a[1].c_str(), names.c_str());
    }
    const std::size_t nout = std::size_t(output_files(*c));
    if (a.size() < 2 + nout) kops::detail::fail("kops::oracle: %s", usage_line(*c).c_str());
    const std::span<const std::string> rest(a.data() + 2, a.size() - 2);
    const loaded in = load(*c, rest.subspan(nout));
    c->run(*c, in, rest.first(nout));
    return 0;
#if KOPS_EXCEPTIONS
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", self, e.what());
    return 1;
  }
#endif
}

} // namespace kops::oracle
