// The golden-data writer of the conformance corpus (docs/conformance.md).
//
// corpus::add(id, group, red, options) evaluates the reduction `red` with
// kops::kokkos::eval on seeded inputs and records, under the output folder:
//   <id>/a<k>.npy        argument k: (M, D) for vi, (N, D) for vj, (D) for pm
//   <id>/<aux>.npy       extra arrays that only the KeOps stages read
//   <id>/out.npy         kops's output, (rows, dim): T values or int64 indices;
//                        value-and-index reductions write out_value.npy (T) and
//                        out_index.npy (int64) instead
// and one entry of index.json (written by corpus::finish) holding the kops and
// KeOps spellings, the KeOps stages (pykeops Genred calls) that compute the
// same numbers, the tolerance and what agreement is expected.
#pragma once

#include <kops/cluster.hpp>
#include <kops/kokkos.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace kops_conformance {

// The .npy format.
// NumPy format 1.0: magic, version, little-endian u16 header length, a Python
// dict literal padded with spaces to a multiple of 64 bytes, then the raw
// C-order data.
template <class T> constexpr const char* npy_descr() {
  if constexpr (std::is_same_v<T, double>) return "<f8";
  else if constexpr (std::is_same_v<T, float>) return "<f4";
  else {
    static_assert(std::is_same_v<T, std::int64_t>, "npy_descr: double, float or int64 only");
    return "<i8";
  }
}

template <class T>
void write_npy(const std::filesystem::path& path, const T* data, const std::vector<std::int64_t>& shape) {
  std::string dict = std::string("{'descr': '") + npy_descr<T>() + "', 'fortran_order': False, 'shape': (";
  std::int64_t count = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    dict += std::to_string(shape[k]) + (shape.size() == 1 || k + 1 < shape.size() ? "," : "");
    if (k + 1 < shape.size()) dict += " ";
    count *= shape[k];
  }
  dict += "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;  // magic(6) + version(2) + length(2) + dict + '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("write_npy: cannot open " + path.string());
  const unsigned char head[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.write(reinterpret_cast<const char*>(head), 8);
  const unsigned char len[2] = {static_cast<unsigned char>(dict.size() & 0xff),
                                static_cast<unsigned char>(dict.size() >> 8)};
  f.write(reinterpret_cast<const char*>(len), 2);
  f.write(dict.data(), std::streamsize(dict.size()));
  f.write(reinterpret_cast<const char*>(data), std::streamsize(count * std::int64_t(sizeof(T))));
  if (!f) throw std::runtime_error("write_npy: cannot write " + path.string());
}

// JSON.
inline std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += char(c);
    else if (c == '\n') r += "\\n";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      r += buf;
    } else r += char(c);
  }
  return r + "\"";
}
inline std::string json_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The corpus.
struct range {
  double lo, hi;
};

// One pykeops Genred call: Genred(formula, [], reduction_op, axis, formula2=..., opt_arg=...).
// Var(k, d, c) in formula/formula2 reads the array named args[k]: an argument
// "a<k>", an aux array, or "s<n>", the output of stage n of the same case (as
// floats, indices included). dim: the formula's dim (formula2's for
// SumSoftMaxWeight); it lets the harness split a batch of concatenated formulas.
struct stage {
  std::string formula;
  std::string reduction_op = "Sum";
  int axis = 1;
  int dim = 1;
  std::string formula2 = "";
  int opt_arg = 0;
  std::vector<std::string> extra_args = {};  // appended after a0 .. a<nargs-1>
};

struct aux_array {
  std::string name;
  char cat;  // 'i' (M, dim), 'j' (N, dim), 'p' (dim)
  int dim;
  std::vector<double> data;
};

enum class expect { agree, keops_bug, semantic_difference };

struct case_options {
  std::string what = "";                              // the ops the case covers
  std::string note = "";                              // why the KeOps side is written so, known issues
  range all{-1.0, 1.0};                               // inputs: uniform in this range ...
  std::map<int, range> ranges = {};                   // ... or in this one for argument k ...
  std::map<int, std::vector<double>> values = {};     // ... or exactly these values (row-major)
  std::map<int, double> integer_step = {};            // ... rounded to multiples of this (ties, exact values)
  std::int64_t M = -1, N = -1;                        // default: the corpus's
  double rtol = -1;                                   // default: 1e-11 (double), 2e-5 (float)
  double atol = -1;                                   // default: rtol * max(1, max |out|)
  std::vector<stage> stages = {};                     // default: the reduction's own Genred call
  std::vector<aux_array> aux = {};
  expect expected = expect::agree;
  std::optional<expect> printed_expected = {};         // keops.printed's, when not `expected` (the
                                                      // printed formula may not use the ops that differ)
  bool isolate = false;                               // never batch with other cases in pykeops
  double known_bug_rtol = -1;                         // keops_bug cases: the KeOps issue's size; a
                                                      // larger difference is a failure
  const kops::block_sparsity* sparsity = nullptr;     // a block-sparse case: the structure of the
                                                      // reduction's rows (pykeops `ranges`; isolated)
  std::string source = "";                            // a string case: the KeOps string kops parsed
  std::int64_t batch = 0;                             // a batched case: B > 0 batches (kops::batch; the
                                                      // arguments of add's PerBatch mask per batch; isolated)
};

// "Var(k,d,c)" as kops prints variables: for KeOps stage formulas written by hand.
inline std::string keops_var(int index, int dim, char cat) {
  return "Var(" + std::to_string(index) + "," + std::to_string(dim) + "," +
         std::to_string(cat == 'i' ? 0 : cat == 'j' ? 1 : 2) + ")";
}
// KeOps' Grad(f, v, e): the reverse-mode derivative KeOps computes itself.
template <kops::Formula F, kops::Variable V, kops::Formula E>
std::string keops_grad(F f, V v, E e) {
  return "Grad(" + kops::to_keops_string(f) + "," + kops::to_keops_string(v) + "," + kops::to_keops_string(e) + ")";
}

// The argument slots of a reduction (a Var, or kops::Unused<k>). For a
// two-pass kops::Chained, R::signature is its first pass's, which may not read
// an argument that the second pass reads (a gradient input): merge both.
template <class A, class B> struct merge_slot { using type = A; };
template <int K, class B> struct merge_slot<kops::Unused<K>, B> { using type = B; };
template <class R> struct args_signature { using type = typename R::signature; };
template <class F, class S> struct args_signature<kops::Chained<F, S>> {
  template <class... A, class... B>
  static auto merge(kops::type_list<A...>, kops::type_list<B...>) -> kops::type_list<typename merge_slot<A, B>::type...>;
  template <class... B, std::size_t... I>
  static auto first_n(kops::type_list<B...>, std::index_sequence<I...>)
      -> kops::type_list<std::tuple_element_t<I, std::tuple<B...>>...>;
  using second_args = decltype(first_n(typename S::signature{}, std::make_index_sequence<std::size_t(F::nargs)>{}));
  using type = decltype(merge(typename F::signature{}, second_args{}));
};
template <class R> using args_signature_t = typename args_signature<R>::type;

class corpus {
 public:
  corpus(std::filesystem::path dir, std::int64_t M, std::int64_t N, std::uint64_t seed)
      : dir_(std::move(dir)), M_(M), N_(N), seed_(seed) {
    std::filesystem::create_directories(dir_);
  }

  // Evaluates red on seeded inputs of element type T and records the case.
  // A batched case (opt.batch = B > 0): argument k holds B arrays, one per
  // batch, when bit k of PerBatch is set (kops::per_batch; written with a
  // leading batch axis, (B, rows, dim) or (B, dim)), else one shared array;
  // the output is (B, rows, dim).
  template <class T = double, unsigned PerBatch = 0, kops::ReductionType R>
  void add(const std::string& id, const std::string& group, R red, case_options opt = {}) {
    for (const auto& c : cases_)
      if (c.id == id) throw std::runtime_error("corpus: duplicate case id " + id);
    const std::int64_t M = opt.M >= 0 ? opt.M : M_, N = opt.N >= 0 ? opt.N : N_;
    std::filesystem::create_directories(dir_ / id);
    // Per-case seed: adding or reordering cases leaves the others' data unchanged.
    std::mt19937_64 rng(seed_ ^ fnv1a(id));

    entry e;
    e.id = id;
    e.json = "{\"id\": " + json_string(id) + ", \"group\": " + json_string(group) +
             ", \"what\": " + json_string(opt.what) + ", \"dtype\": " +
             json_string(std::is_same_v<T, double> ? "float64" : "float32") + ", \"M\": " + std::to_string(M) +
             ", \"N\": " + std::to_string(N) + ",\n   \"kops\": " + json_string(kops_string(red));
    const std::int64_t B = opt.batch > 0 ? opt.batch : 1;
    if (opt.batch > 0) {
      e.json += ", \"batch\": " + std::to_string(opt.batch);
      opt.isolate = true;
    }
    auto batched = [&](int k) { return opt.batch > 0 && ((PerBatch >> k) & 1u) != 0; };

    // The KeOps side: the reduction's own Genred calls (kops::keops_calls) unless stages are given.
    const std::vector<stage> printed = printed_stages(red);
    std::vector<stage> stages = opt.stages.empty() ? printed : opt.stages;

    // Arguments that only the KeOps stages read: Var(k, d, c) with k < nargs.
    std::map<int, std::pair<char, int>> keops_only;
    for (const auto& st : stages)
      for (const std::string* f : {&st.formula, &st.formula2})
        for (std::size_t p = f->find("Var("); p != std::string::npos; p = f->find("Var(", p + 1)) {
          int k = 0, d = 0, cat = 0;
          if (std::sscanf(f->c_str() + p, "Var(%d,%d,%d)", &k, &d, &cat) == 3 && k < R::nargs)
            keops_only[k] = {cat == 0 ? 'i' : cat == 1 ? 'j' : 'p', d};
        }

    // Inputs, in argument order (unused slots: null pointers, no file).
    std::vector<std::vector<T>> data(std::size_t(R::nargs));
    std::string inputs;
    std::vector<std::string> arg_names;
    for_slots<args_signature_t<R>>([&]<class S>(int k) {
      std::string name = "a" + std::to_string(k);
      arg_names.push_back(name);
      if (!inputs.empty()) inputs += ", ";
      if constexpr (kops::is_variable_v<S>) {
        const char cat = S::cat == kops::category::i ? 'i' : S::cat == kops::category::j ? 'j' : 'p';
        const std::int64_t rows = cat == 'i' ? M : cat == 'j' ? N : 1;
        const std::int64_t copies = batched(k) ? B : 1;
        data[std::size_t(k)] = make_data<T>(rng, opt, k, std::size_t(copies * rows * S::dim));
        const std::string file = id + "/" + name + ".npy";
        write_array(file, data[std::size_t(k)].data(), cat, rows, S::dim, batched(k) ? B : 0);
        inputs += "{\"name\": \"" + name + "\", \"index\": " + std::to_string(k) + ", \"cat\": \"" + cat +
                  "\", \"dim\": " + std::to_string(S::dim) + ", \"read\": true, \"file\": " + json_string(file) +
                  (batched(k) ? ", \"batched\": true" : "") + "}";
      } else if (auto it = keops_only.find(k); it != keops_only.end()) {
        // kops does not read it (simplified away, e.g. in a gradient), the KeOps stages do
        const auto [cat, dim] = it->second;
        const std::int64_t rows = cat == 'i' ? M : cat == 'j' ? N : 1;
        const std::vector<T> v = make_data<T>(rng, opt, k, std::size_t(rows * dim));
        const std::string file = id + "/" + name + ".npy";
        write_array(file, v.data(), cat, rows, dim);
        inputs += "{\"name\": \"" + name + "\", \"index\": " + std::to_string(k) + ", \"cat\": \"" + cat +
                  "\", \"dim\": " + std::to_string(dim) + ", \"read\": false, \"file\": " + json_string(file) + "}";
      } else {
        inputs += "{\"name\": \"" + name + "\", \"index\": " + std::to_string(k) +
                  ", \"cat\": \"unused\", \"dim\": 0, \"read\": false, \"file\": \"\"}";
      }
    });
    e.json += ",\n   \"inputs\": [" + inputs + "]";

    std::string aux;
    for (const auto& a : opt.aux) {
      const std::int64_t rows = a.cat == 'i' ? M : a.cat == 'j' ? N : 1;
      if (std::int64_t(a.data.size()) != rows * a.dim) throw std::runtime_error("corpus: aux " + a.name + " of " + id + " has the wrong size");
      std::vector<T> v(a.data.begin(), a.data.end());
      const std::string file = id + "/" + a.name + ".npy";
      write_array(file, v.data(), a.cat, rows, a.dim);
      aux += std::string(aux.empty() ? "" : ", ") + "{\"name\": " + json_string(a.name) + ", \"cat\": \"" + a.cat +
             "\", \"dim\": " + std::to_string(a.dim) + ", \"file\": " + json_string(file) + "}";
    }
    e.json += ",\n   \"aux\": [" + aux + "]";

    // kops's result.
    constexpr bool rows_i = R::row_cat == kops::category::i;
    const std::int64_t rows = rows_i ? M : N;
    using Out = typename R::op::template out_t<T>;
    std::vector<Out> out(std::size_t(B * rows * R::dim));
    try {
      if (opt.batch > 0)
        call_batched<PerBatch>(red, M, N, out.data(), data, opt.batch, std::make_index_sequence<std::size_t(R::nargs)>{});
      else
        call_eval(red, M, N, out.data(), data, opt.sparsity, std::make_index_sequence<std::size_t(R::nargs)>{});
    } catch (const std::exception& err) {
      throw std::runtime_error("case " + id + ": " + err.what());
    }
    if (opt.sparsity) {
      // pykeops' six arrays: (ranges_i, slices_i, redranges_j) describe the i rows,
      // (ranges_j, slices_j, redranges_i) the j rows; one set is the structure,
      // the other its transpose.
      const kops::cluster::structure other = kops::cluster::transpose(*opt.sparsity, rows, rows_i ? N : M);
      const kops::block_sparsity by_i = rows_i ? *opt.sparsity : other.view();
      const kops::block_sparsity by_j = rows_i ? other.view() : *opt.sparsity;
      std::string files;
      auto put = [&](const std::string& name, const std::vector<std::int64_t>& v, std::vector<std::int64_t> shape) {
        write_npy(dir_ / id / (name + ".npy"), v.data(), shape);
        files += std::string(files.empty() ? "" : ", ") + json_string(id + "/" + name + ".npy");
      };
      auto pairs = [](const kops::range* r, std::int64_t n) {
        std::vector<std::int64_t> v;
        for (std::int64_t k = 0; k < n; ++k) v.insert(v.end(), {r[k].begin, r[k].end});
        return v;
      };
      auto put_structure = [&](const kops::block_sparsity& b, const char* rows_name, const char* slices_name,
                               const char* red_name) {
        const std::int64_t n = kops::detail::sparsity_intervals(b);
        put(rows_name, pairs(b.rows, b.row_blocks), {b.row_blocks, 2});
        put(slices_name, std::vector<std::int64_t>(b.slices, b.slices + b.row_blocks), {b.row_blocks});
        put(red_name, pairs(b.reduced, n), {n, 2});
      };
      put_structure(by_i, "ranges_i", "slices_i", "redranges_j");
      put_structure(by_j, "ranges_j", "slices_j", "redranges_i");
      e.json += ",\n   \"ranges\": [" + files + "]";
      opt.isolate = true;
    }

    double scale = 1.0;
    std::string output;
    const std::vector<std::int64_t> out_shape =
        opt.batch > 0 ? std::vector<std::int64_t>{B, rows, R::dim} : std::vector<std::int64_t>{rows, R::dim};
    if constexpr (std::is_same_v<Out, std::int64_t>) {
      write_npy(dir_ / id / "out.npy", out.data(), out_shape);
      output = "{\"kind\": \"index\", \"index\": " + json_string(id + "/out.npy");
    } else if constexpr (std::is_same_v<Out, T>) {
      write_npy(dir_ / id / "out.npy", out.data(), out_shape);
      for (T v : out)
        if (std::isfinite(v)) scale = std::max(scale, double(std::abs(v)));
      output = "{\"kind\": \"value\", \"value\": " + json_string(id + "/out.npy");
    } else {
      std::vector<T> values;
      std::vector<std::int64_t> indices;
      for (const auto& vi : out) {
        values.push_back(vi.value);
        indices.push_back(vi.index);
        if (std::isfinite(vi.value)) scale = std::max(scale, double(std::abs(vi.value)));
      }
      write_npy(dir_ / id / "out_value.npy", values.data(), out_shape);
      write_npy(dir_ / id / "out_index.npy", indices.data(), out_shape);
      output = "{\"kind\": \"value_index\", \"value\": " + json_string(id + "/out_value.npy") +
               ", \"index\": " + json_string(id + "/out_index.npy");
    }
    e.json += ",\n   \"output\": " + output + ", \"rows\": " + std::to_string(rows) + ", \"dim\": " +
              std::to_string(R::dim) + ", \"k\": " + std::to_string(k_of<R>()) + "}";

    const double rtol = opt.rtol > 0 ? opt.rtol : std::is_same_v<T, double> ? 1e-11 : 2e-5;
    const double atol = opt.atol >= 0 ? opt.atol : rtol * scale;
    e.json += ",\n   \"tolerance\": {\"rtol\": " + json_number(rtol) + ", \"atol\": " + json_number(atol) + "}";
    if (opt.known_bug_rtol > 0)
      e.json += ", \"known_bug_tolerance\": {\"rtol\": " + json_number(opt.known_bug_rtol) +
                ", \"atol\": " + json_number(opt.known_bug_rtol * scale) + "}";

    e.json += ",\n   \"keops_reduction\": " + json_string(kops::to_keops_string(red));
    if (!opt.source.empty()) e.json += ", \"keops_source\": " + json_string(opt.source);
    e.json += ",\n   \"keops\": {\"isolate\": " + std::string(opt.isolate ? "true" : "false") +
              ", \"stages\": [\n      " + stages_json(stages, arg_names) + "]";
    // The calls kops::to_keops_string prints, when the stages are others (written by hand: KeOps' Grad, ...).
    // (Not when they hold a node pykeops cannot parse: softdtw_sqdist_grad of expressions, docs/conformance.md.)
    const bool parseable = std::none_of(printed.begin(), printed.end(), [](const stage& s) {
      return s.formula.find("GradSoftDTW_SqDist(") != std::string::npos;
    });
    if (!opt.stages.empty() && parseable) e.json += ",\n    \"printed\": [\n      " + stages_json(printed, arg_names) + "]";
    e.json += "}";
    auto expect_name = [](expect x) {
      return json_string(x == expect::agree ? "agree" : x == expect::keops_bug ? "keops_bug" : "semantic_difference");
    };
    e.json += ",\n   \"expect\": " + expect_name(opt.expected);
    if (opt.printed_expected) e.json += ", \"printed_expect\": " + expect_name(*opt.printed_expected);
    e.json += ", \"note\": " + json_string(opt.note) + "}";
    cases_.push_back(std::move(e));
  }

  // Writes index.json; returns the number of cases.
  std::size_t finish() const {
    std::ofstream f(dir_ / "index.json");
    f << "{\"format\": \"kops-conformance-golden\", \"version\": 1, \"seed\": " << seed_
      << ", \"cases\": [\n";
    for (std::size_t k = 0; k < cases_.size(); ++k) f << "  " << cases_[k].json << (k + 1 < cases_.size() ? ",\n" : "\n");
    f << "]}\n";
    if (!f) throw std::runtime_error("corpus: cannot write index.json");
    return cases_.size();
  }

  std::int64_t M() const { return M_; }
  std::int64_t N() const { return N_; }

 private:
  struct entry {
    std::string id, json;
  };

  static std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
  }

  template <class Sig, class Fn> static void for_slots(Fn&& fn) {
    [&]<class... S>(kops::type_list<S...>) {
      int k = 0;
      (fn.template operator()<S>(k++), ...);
    }(Sig{});
  }

  // kops::keops_calls(red) as stages: call k also reads the outputs s0 .. s<k-1>.
  template <class R> static std::vector<stage> printed_stages(R red) {
    std::vector<stage> v;
    for (const kops::keops_call& c : kops::keops_calls(red)) {
      stage s{.formula = c.formula, .reduction_op = c.reduction_op, .axis = c.axis, .dim = c.dim,
              .formula2 = c.formula2, .opt_arg = c.opt_arg};
      for (std::size_t k = 0; k < v.size(); ++k) s.extra_args.push_back("s" + std::to_string(k));
      v.push_back(s);
    }
    return v;
  }

  static std::string stages_json(const std::vector<stage>& stages, const std::vector<std::string>& arg_names) {
    std::string st;
    for (const auto& s : stages) {
      std::vector<std::string> args = arg_names;
      args.insert(args.end(), s.extra_args.begin(), s.extra_args.end());
      std::string a;
      for (const auto& n : args) a += (a.empty() ? "" : ", ") + json_string(n);
      st += std::string(st.empty() ? "" : ",\n      ") + "{\"formula\": " + json_string(s.formula) +
            ", \"formula2\": " + json_string(s.formula2) + ", \"reduction_op\": " + json_string(s.reduction_op) +
            ", \"opt_arg\": " + std::to_string(s.opt_arg) + ", \"axis\": " + std::to_string(s.axis) +
            ", \"dim\": " + std::to_string(s.dim) + ", \"args\": [" + a + "]}";
    }
    return st;
  }

  // A two-pass reduction prints as chained(first pass; second pass), the second
  // reading the first's output as its last argument.
  template <class R> static std::string kops_string(R red) {
    if constexpr (kops::is_chained_v<R>)
      return "chained(" + kops::to_string(typename R::first{}) + "; " + kops::to_string(typename R::second{}) + ")";
    else
      return kops::to_string(red);
  }

  template <class R> static constexpr int k_of() {
    if constexpr (requires { R::op::k; }) return R::op::k;
    else return 0;
  }

  // Uniform doubles from the raw 64-bit stream (portable: std::uniform_real_distribution is not).
  template <class T>
  static std::vector<T> make_data(std::mt19937_64& rng, const case_options& opt, int k, std::size_t n) {
    std::vector<T> v(n);
    if (auto it = opt.values.find(k); it != opt.values.end()) {
      if (it->second.size() != n) throw std::runtime_error("corpus: values for argument " + std::to_string(k) + " have the wrong size");
      for (std::size_t q = 0; q < n; ++q) v[q] = T(it->second[q]);
      return v;
    }
    range r = opt.all;
    if (auto it = opt.ranges.find(k); it != opt.ranges.end()) r = it->second;
    for (auto& x : v) {
      double u = r.lo + (r.hi - r.lo) * double(rng() >> 11) * 0x1.0p-53;
      if (auto it = opt.integer_step.find(k); it != opt.integer_step.end()) u = std::round(u / it->second) * it->second;
      x = T(u);
    }
    return v;
  }

  // batches > 0: the array of every batch, with a leading batch axis.
  template <class T>
  void write_array(const std::string& file, const T* d, char cat, std::int64_t rows, int dim,
                   std::int64_t batches = 0) const {
    std::vector<std::int64_t> shape;
    if (batches > 0) shape.push_back(batches);
    if (cat != 'p') shape.push_back(rows);
    shape.push_back(dim);
    write_npy(dir_ / file, d, shape);
  }

  template <class R, class Out, class T, std::size_t... I>
  static void call_eval(R red, std::int64_t M, std::int64_t N, Out* out, const std::vector<std::vector<T>>& data,
                        const kops::block_sparsity* s, std::index_sequence<I...>) {
    if (s)
      kops::kokkos::eval(red, M, N, out, (data[I].empty() ? static_cast<const T*>(nullptr) : data[I].data())..., *s);
    else
      kops::kokkos::eval(red, M, N, out, (data[I].empty() ? static_cast<const T*>(nullptr) : data[I].data())...);
  }

  // A batched call: argument k marked kops::per_batch when bit k of PerBatch is set.
  template <unsigned PerBatch, class R, class Out, class T, std::size_t... I>
  static void call_batched(R red, std::int64_t M, std::int64_t N, Out* out, const std::vector<std::vector<T>>& data,
                           std::int64_t B, std::index_sequence<I...>) {
    auto arg = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      const T* p = data[K].empty() ? static_cast<const T*>(nullptr) : data[K].data();
      if constexpr (((PerBatch >> K) & 1u) != 0) return kops::per_batch(p);
      else return p;
    };
    kops::kokkos::eval(red, M, N, out, arg(std::integral_constant<std::size_t, I>{})..., kops::batch{B});
  }

  std::filesystem::path dir_;
  std::int64_t M_, N_;
  std::uint64_t seed_;
  std::vector<entry> cases_;
};

} // namespace kops_conformance
