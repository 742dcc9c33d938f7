// The C++ reader of the golden data (golden.hpp), and how a C++ engine runs the
// suite without Python: load a case, evaluate it with the engine (here kops
// itself, from the same formula types), compare with the stored kops output
// within the case's tolerance. The folder is $KOPS_CONFORMANCE_GOLDEN, else
// the one CMake compiled in.
#include "example_cases.hpp"
#include "golden.hpp"

#include <kops/kokkos.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#ifndef KOPS_CONFORMANCE_GOLDEN_DIR
#define KOPS_CONFORMANCE_GOLDEN_DIR "golden"
#endif

namespace golden = kops_conformance::golden;

namespace {

const golden::index& golden_index() {
  static const golden::index idx = [] {
    const char* env = std::getenv("KOPS_CONFORMANCE_GOLDEN");
    return golden::index::load(env && *env ? env : KOPS_CONFORMANCE_GOLDEN_DIR);
  }();
  return idx;
}

// The arguments of a case as T arrays (empty for unused slots: null pointers).
template <class T>
std::vector<std::vector<T>> load_inputs(const golden::golden_case& c) {
  std::vector<std::vector<T>> data;
  for (const auto& a : c.inputs) data.push_back(a.file.empty() ? std::vector<T>{} : golden_index().array(a.file).values<T>());
  return data;
}
template <class T>
const T* ptr(const std::vector<T>& v) {
  return v.empty() ? nullptr : v.data();
}

// Evaluates red on the case's inputs with kops and checks the stored output.
template <class T, class R>
void rerun(const std::string& id, R red) {
  const auto& c = golden_index().at(id);
  INFO("case " << id);
  CHECK(c.dtype == (std::is_same_v<T, double> ? "float64" : "float32"));
  if constexpr (!kops::is_chained_v<R>) CHECK(c.keops_reduction == kops::to_keops_string(red));
  REQUIRE(int(c.inputs.size()) == R::nargs);
  const auto in = load_inputs<T>(c);
  using Out = typename R::op::template out_t<T>;
  std::vector<Out> out(std::size_t(c.rows * c.dim));
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    kops::kokkos::eval(red, c.M, c.N, out.data(), ptr(in[I])...);
  }(std::make_index_sequence<std::size_t(R::nargs)>{});
  std::string why;
  bool close;
  if constexpr (std::is_same_v<Out, T>) {
    close = golden::all_close(out.data(), golden_index().array(c.value_file), c.rtol, c.atol, &why);
  } else {
    std::vector<T> values;
    std::vector<std::int64_t> indices;
    for (const auto& vi : out) values.push_back(vi.value), indices.push_back(vi.index);
    close = golden::all_close(values.data(), golden_index().array(c.value_file), c.rtol, c.atol, &why);
    CHECK(indices == golden_index().array(c.index_file).values<std::int64_t>());
  }
  INFO(why);
  CHECK(close);
}

} // namespace

TEST_CASE("json: the whole syntax, escapes included", "[conformance]") {
  const auto j = golden::parse_json(R"( {"a": [1, -2.5e3, true, false, null], "s": "q\"\\\/\n\u00e9\ud83d\ude00", "o": {}} )");
  REQUIRE(j["a"].items().size() == 5);
  CHECK(j["a"].items()[1].num() == -2500.0);
  CHECK(j["a"].items()[2].boolean());
  CHECK(j["a"].items()[4].is_null());
  CHECK(j["s"].str() == "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(j.find("missing") == nullptr);
  CHECK_THROWS_AS(golden::parse_json("{\"a\": }"), golden::error);
  CHECK_THROWS_AS(golden::parse_json("[1, 2] 3"), golden::error);
}

TEST_CASE("golden index: every case is complete and its arrays have the announced shapes", "[conformance]") {
  const auto& idx = golden_index();
  REQUIRE(idx.cases.size() >= 60);
  std::set<std::string> ids;
  for (const auto& c : idx.cases) {
    INFO("case " << c.id);
    CHECK(ids.insert(c.id).second);
    CHECK((c.dtype == "float64" || c.dtype == "float32"));
    const std::string fdescr = c.dtype == "float64" ? "<f8" : "<f4";
    std::set<std::string> names;
    for (const auto& a : c.inputs) {
      names.insert(a.name);
      if (a.cat == 'u') {
        CHECK(a.file.empty());
        continue;
      }
      const auto arr = idx.array(a.file);
      CHECK(arr.descr == fdescr);
      std::vector<std::int64_t> shape =
          a.cat == 'p' ? std::vector<std::int64_t>{a.dim} : std::vector<std::int64_t>{a.cat == 'i' ? c.M : c.N, a.dim};
      CHECK((!a.batched || c.batch > 0));
      if (a.batched) shape.insert(shape.begin(), c.batch);
      CHECK(arr.shape == shape);
    }
    for (const auto& a : c.aux) {
      names.insert(a.name);
      CHECK(idx.array(a.file).descr == fdescr);
    }
    CHECK(c.rows == (c.stages.back().axis == 1 ? c.M : c.N));
    std::vector<std::int64_t> out_shape{c.rows, c.dim};
    if (c.batch > 0) {
      out_shape.insert(out_shape.begin(), c.batch);
      CHECK(c.isolate);
    }
    if (c.output_kind != "index") {
      const auto v = idx.array(c.value_file);
      CHECK(v.descr == fdescr);
      CHECK(v.shape == out_shape);
    }
    if (c.output_kind != "value") {
      const auto v = idx.array(c.index_file);
      CHECK(v.descr == "<i8");
      CHECK(v.shape == out_shape);
    }
    if (!c.ranges.empty()) {
      // Block-sparse: six int64 arrays, pairs as (n, 2), slices as (blocks).
      REQUIRE(c.ranges.size() == 6);
      CHECK(c.isolate);
      for (std::size_t k = 0; k < 6; ++k) {
        const auto r = idx.array(c.ranges[k]);
        CHECK(r.descr == "<i8");
        CHECK(r.shape.size() == (k == 1 || k == 4 ? 1u : 2u));
      }
      CHECK(idx.array(c.ranges[0]).shape[0] == idx.array(c.ranges[1]).shape[0]);
      CHECK(idx.array(c.ranges[3]).shape[0] == idx.array(c.ranges[4]).shape[0]);
    }
    CHECK(c.rtol > 0);
    CHECK(c.atol >= 0);
    CHECK((c.expect == "agree" || c.expect == "keops_bug" || c.expect == "semantic_difference"));
    REQUIRE(!c.stages.empty());
    for (std::size_t s = 0; s < c.stages.size(); ++s) {
      for (const auto& a : c.stages[s].args)
        CHECK((names.count(a) || (a.size() > 1 && a[0] == 's' && std::stoul(a.substr(1)) < s)));
      names.insert("s" + std::to_string(s));
    }
  }
}

TEST_CASE("golden data: kops evaluated again from the files reproduces the stored outputs", "[conformance]") {
  namespace ex = kops_conformance::examples;
  rerun<double>("gauss_conv", ex::gauss_conv);
  rerun<float>("gauss_conv_f32", ex::gauss_conv);
  rerun<double>("kmin_argkmin_axis_i", ex::knn_values_indices);
  rerun<double>("grad_logsumexp_y", ex::lse_grad_y);
  rerun<float>("grad_logsumexp_y_f32", ex::lse_grad_y);
}

TEST_CASE("golden data: a batched case evaluated again (kops::batch, kops::per_batch)", "[conformance]") {
  const auto& c = golden_index().at("batch_gauss_conv");
  REQUIRE(c.batch == 3);
  REQUIRE(c.inputs.size() == 4);
  CHECK((c.inputs[0].batched && !c.inputs[1].batched && c.inputs[2].batched && c.inputs[3].batched));
  const auto in = load_inputs<double>(c);
  std::vector<double> out(std::size_t(c.batch * c.rows * c.dim));
  kops::kokkos::eval(kops_conformance::examples::gauss_conv, c.M, c.N, out.data(), kops::per_batch(ptr(in[0])),
                     ptr(in[1]), kops::per_batch(ptr(in[2])), kops::per_batch(ptr(in[3])), kops::batch{c.batch});
  std::string why;
  const bool close = golden::all_close(out.data(), golden_index().array(c.value_file), c.rtol, c.atol, &why);
  INFO(why);
  CHECK(close);
}

TEST_CASE("npy reader: refuses what it cannot read exactly", "[conformance]") {
  const auto& c = golden_index().at("gauss_conv_f32");
  const auto a = golden_index().array(c.inputs[0].file);
  CHECK(a.values<double>().size() == std::size_t(c.M * 3));  // float32 -> double is exact
  const auto d = golden_index().array(golden_index().at("gauss_conv").inputs[0].file);
  CHECK_THROWS_AS(d.values<float>(), golden::error);           // float64 -> float would round
  CHECK_THROWS_AS(golden::read_npy(golden_index().dir / "index.json"), golden::error);
}
