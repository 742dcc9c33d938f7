// A C++ reader for the kops conformance golden data (docs/conformance.md), so
// that an engine written in C++ can run the suite without Python:
//
//   auto idx = kops_conformance::golden::index::load("build/tests/conformance/golden");
//   for (const auto& c : idx.cases) {
//     // c.inputs[k]: argument k (cat 'i' (M, dim), 'j' (N, dim), 'p' (dim), 'u' unused)
//     std::vector<double> x = idx.array(c.inputs[0].file).values<double>();
//     ... evaluate c.stages (KeOps formulas) or one's own translation of c.kops ...
//     std::string why;
//     bool ok = kops_conformance::golden::all_close(mine.data(), idx.array(c.value_file), c.rtol, c.atol, &why);
//   }
//
// Header-only, C++17, standard library only: a small JSON parser (the whole of
// JSON, numbers as double) and a .npy reader (format versions 1-3, C order,
// little-endian float64 '<f8', float32 '<f4', int64 '<i8').
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kops_conformance::golden {

struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// JSON.
struct json {
  using array = std::vector<json>;
  using object = std::vector<std::pair<std::string, json>>;  // in file order
  std::variant<std::nullptr_t, bool, double, std::string, array, object> v;

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(v); }
  const json& operator[](std::string_view key) const {
    if (const json* j = find(key)) return *j;
    throw error("golden: missing key \"" + std::string(key) + "\"");
  }
  const json* find(std::string_view key) const {
    if (const auto* o = std::get_if<object>(&v))
      for (const auto& [k, val] : *o)
        if (k == key) return &val;
    return nullptr;
  }
  const array& items() const { return get<array>("an array"); }
  const std::string& str() const { return get<std::string>("a string"); }
  double num() const { return get<double>("a number"); }
  long long integer() const {
    const double d = num();
    if (d != std::floor(d)) throw error("golden: expected an integer, got " + std::to_string(d));
    return static_cast<long long>(d);
  }
  bool boolean() const { return get<bool>("a boolean"); }

 private:
  template <class T> const T& get(const char* what) const {
    if (const T* p = std::get_if<T>(&v)) return *p;
    throw error(std::string("golden: expected ") + what);
  }
};

namespace detail {
class json_parser {
 public:
  explicit json_parser(std::string_view s) : s_(s) {}
  json parse() {
    json j = value();
    space();
    if (p_ != s_.size()) fail("trailing characters");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw error("golden: JSON " + what + " at offset " + std::to_string(p_));
  }
  void space() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) ++p_;
  }
  bool eat(char c) {
    space();
    if (p_ < s_.size() && s_[p_] == c) return ++p_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("'") + c + "' expected");
  }
  bool word(std::string_view w) {
    if (s_.substr(p_, w.size()) == w) return p_ += w.size(), true;
    return false;
  }
  json value() {
    space();
    if (p_ >= s_.size()) fail("value expected");
    const char c = s_[p_];
    if (c == '{') {
      ++p_;
      json::object o;
      if (eat('}')) return json{o};
      do {
        space();
        std::string k = string();
        expect(':');
        o.emplace_back(std::move(k), value());
      } while (eat(','));
      expect('}');
      return json{std::move(o)};
    }
    if (c == '[') {
      ++p_;
      json::array a;
      if (eat(']')) return json{a};
      do a.push_back(value());
      while (eat(','));
      expect(']');
      return json{std::move(a)};
    }
    if (c == '"') return json{string()};
    if (word("true")) return json{true};
    if (word("false")) return json{false};
    if (word("null")) return json{nullptr};
    const std::string rest(s_.substr(p_, 64));
    char* end = nullptr;
    const double d = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) fail("value expected");
    p_ += std::size_t(end - rest.c_str());
    return json{d};
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) out += char(0xc0 | (cp >> 6)), out += char(0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
      out += char(0xe0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3f)), out += char(0x80 | (cp & 0x3f));
    else
      out += char(0xf0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3f)), out += char(0x80 | ((cp >> 6) & 0x3f)),
          out += char(0x80 | (cp & 0x3f));
  }
  unsigned hex4() {
    if (p_ + 4 > s_.size()) fail("bad \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[p_++];
      v = v * 16 + unsigned(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : (fail("bad \\u escape"), 0));
    }
    return v;
  }
  std::string string() {
    if (p_ >= s_.size() || s_[p_] != '"') fail("string expected");
    ++p_;
    std::string out;
    while (true) {
      if (p_ >= s_.size()) fail("unterminated string");
      const char c = s_[p_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= s_.size()) fail("unterminated string");
      switch (const char e = s_[p_++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && word("\\u")) cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4() - 0xdc00);
          utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  std::string_view s_;
  std::size_t p_ = 0;
};
} // namespace detail

inline json parse_json(std::string_view text) { return detail::json_parser(text).parse(); }

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw error("golden: cannot open " + path.string());
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The .npy format.
struct npy_array {
  std::string descr;                // "<f8", "<f4" or "<i8"
  std::vector<std::int64_t> shape;  // () for a scalar
  std::vector<unsigned char> bytes;

  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  // The elements converted to T (double, float or std::int64_t); float64 data
  // read as float, or floats read as int64, are refused (no silent rounding).
  template <class T> std::vector<T> values() const {
    std::vector<T> out(static_cast<std::size_t>(size()));
    if (descr == "<f8") copy<double, T>(out);
    else if (descr == "<f4") copy<float, T>(out);
    else if (descr == "<i8") copy<std::int64_t, T>(out);
    else throw error("golden: unsupported npy dtype " + descr);
    return out;
  }

 private:
  template <class S, class T> void copy(std::vector<T>& out) const {
    constexpr bool exact = std::is_same_v<S, T> || (std::is_same_v<S, float> && std::is_same_v<T, double>) ||
                           (std::is_same_v<S, std::int64_t> && !std::is_same_v<T, float>);
    if constexpr (!exact) {
      throw error("golden: npy dtype " + descr + " cannot be read without rounding as the requested type");
    } else {
      if (bytes.size() != out.size() * sizeof(S)) throw error("golden: npy data size does not match its shape");
      for (std::size_t k = 0; k < out.size(); ++k) {
        S s;
        std::memcpy(&s, bytes.data() + k * sizeof(S), sizeof(S));
        out[k] = static_cast<T>(s);
      }
    }
  }
};

inline npy_array read_npy(const std::filesystem::path& path) {
  const std::string b = read_file(path);
  auto bad = [&](const std::string& what) { return error("golden: " + path.string() + ": " + what); };
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw bad("not a .npy file");
  const int major = static_cast<unsigned char>(b[6]);
  std::size_t hlen, start;
  if (major == 1) {
    hlen = std::size_t(static_cast<unsigned char>(b[8])) | std::size_t(static_cast<unsigned char>(b[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw bad("truncated header");
    hlen = 0;
    for (int k = 3; k >= 0; --k) hlen = hlen << 8 | static_cast<unsigned char>(b[std::size_t(8 + k)]);
    start = 12;
  } else {
    throw bad("unsupported npy version " + std::to_string(major));
  }
  if (b.size() < start + hlen) throw bad("truncated header");
  const std::string h = b.substr(start, hlen);
  auto field = [&](const std::string& key) {
    const auto k = h.find("'" + key + "'");
    if (k == std::string::npos) throw bad("header without " + key);
    auto p = h.find(':', k);
    if (p == std::string::npos) throw bad("bad header");
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    return p;
  };
  npy_array a;
  {
    const auto p = field("descr");
    const char q = h[p];
    const auto e = h.find(q, p + 1);
    if ((q != '\'' && q != '"') || e == std::string::npos) throw bad("bad descr");
    a.descr = h.substr(p + 1, e - p - 1);
    if (a.descr != "<f8" && a.descr != "<f4" && a.descr != "<i8")
      throw bad("unsupported dtype " + a.descr + " (float64, float32, int64, little-endian)");
  }
  if (h.compare(field("fortran_order"), 5, "False") != 0) throw bad("Fortran order is not supported");
  {
    auto p = field("shape");
    if (h[p] != '(') throw bad("bad shape");
    const auto e = h.find(')', p);
    if (e == std::string::npos) throw bad("bad shape");
    for (++p; p < e;) {
      while (p < e && (h[p] == ' ' || h[p] == ',')) ++p;
      if (p >= e) break;
      char* end = nullptr;
      const long long n = std::strtoll(h.c_str() + p, &end, 10);
      if (end == h.c_str() + p || n < 0) throw bad("bad shape");
      a.shape.push_back(n);
      p = std::size_t(end - h.c_str());
    }
  }
  const std::size_t item = a.descr == "<f4" ? 4 : 8;
  const std::size_t n = std::size_t(a.size()) * item;
  if (b.size() - start - hlen != n) throw bad("data size does not match the shape");
  a.bytes.assign(b.begin() + std::ptrdiff_t(start + hlen), b.end());
  return a;
}

// The index.
struct argument {
  std::string name;  // "a<k>" for argument k; aux arrays have their own names
  int index = -1;    // argument position (-1 for aux arrays)
  char cat = 'u';    // 'i': (M, dim), 'j': (N, dim), 'p': (dim), 'u': unused (no file: pass a null pointer)
  int dim = 0;
  bool read = true;  // false: kops does not read it (an argument only the KeOps stages use)
  std::string file;  // relative to the golden folder
  bool batched = false;  // a batched case's argument with one array per batch: a leading batch axis
};

// One pykeops Genred call; Var(k, ...) in its formulas reads the array named args[k]
// (an argument, an aux array, or "s<n>": the output of stage n, as floats).
struct stage {
  std::string formula, formula2, reduction_op;
  int opt_arg = 0;
  int axis = 1;  // 1: reduce over j (M output rows), 0: over i (N rows)
  int dim = 1;
  std::vector<std::string> args;
};

struct golden_case {
  std::string id, group, what, dtype, kops, keops_reduction, expect, note;
  std::int64_t M = 0, N = 0;
  std::vector<argument> inputs, aux;
  std::string output_kind;             // "value", "index" or "value_index"
  std::string value_file, index_file;  // "" when the kind has none
  std::int64_t rows = 0;
  int dim = 0, k = 0;
  double rtol = 0, atol = 0;           // |kops - other| <= atol + rtol |other|, element-wise
  double known_bug_rtol = 0, known_bug_atol = 0;  // 0: none
  bool isolate = false;
  std::vector<stage> stages;
  // Block-sparse cases: pykeops' six ranges arrays, (ranges_i, slices_i,
  // redranges_j, ranges_j, slices_j, redranges_i), int64 .npy files; empty
  // for a dense case. The first three describe the i rows, the last three the
  // j rows (kops::block_sparsity of an axis_j / axis_i reduction respectively).
  std::vector<std::string> ranges;
  // Batched cases (kops::batch): B > 0 problems of sizes M, N; the arguments
  // marked batched hold one array per batch, the others are shared; the
  // output is (batch, rows, dim). 0 for a plain case.
  std::int64_t batch = 0;
};

struct index {
  std::filesystem::path dir;
  long long seed = 0;
  std::vector<golden_case> cases;

  static index load(const std::filesystem::path& dir) {
    const json root = parse_json(read_file(dir / "index.json"));
    if (root["format"].str() != "kops-conformance-golden") throw error("golden: not a kops conformance index");
    if (root["version"].integer() != 1) throw error("golden: unsupported index version");
    index idx;
    idx.dir = dir;
    idx.seed = root["seed"].integer();
    for (const json& c : root["cases"].items()) idx.cases.push_back(read_case(c));
    return idx;
  }

  const golden_case& at(std::string_view id) const {
    for (const auto& c : cases)
      if (c.id == id) return c;
    throw error("golden: no case " + std::string(id));
  }
  npy_array array(const std::string& file) const { return read_npy(dir / file); }

 private:
  static argument read_argument(const json& a) {
    argument r;
    r.name = a["name"].str();
    if (const json* i = a.find("index")) r.index = int(i->integer());
    const std::string cat = a["cat"].str();
    r.cat = cat == "unused" ? 'u' : cat.at(0);
    r.dim = int(a["dim"].integer());
    if (const json* rd = a.find("read")) r.read = rd->boolean();
    r.file = a["file"].str();
    if (const json* b = a.find("batched")) r.batched = b->boolean();
    return r;
  }
  static golden_case read_case(const json& c) {
    golden_case g;
    g.id = c["id"].str();
    g.group = c["group"].str();
    g.what = c["what"].str();
    g.dtype = c["dtype"].str();
    g.kops = c["kops"].str();
    g.keops_reduction = c["keops_reduction"].str();
    g.expect = c["expect"].str();
    g.note = c["note"].str();
    g.M = c["M"].integer();
    g.N = c["N"].integer();
    for (const json& a : c["inputs"].items()) g.inputs.push_back(read_argument(a));
    for (const json& a : c["aux"].items()) g.aux.push_back(read_argument(a));
    const json& o = c["output"];
    g.output_kind = o["kind"].str();
    if (const json* v = o.find("value")) g.value_file = v->str();
    if (const json* v = o.find("index")) g.index_file = v->str();
    g.rows = o["rows"].integer();
    g.dim = int(o["dim"].integer());
    g.k = int(o["k"].integer());
    g.rtol = c["tolerance"]["rtol"].num();
    g.atol = c["tolerance"]["atol"].num();
    if (const json* t = c.find("known_bug_tolerance")) {
      g.known_bug_rtol = (*t)["rtol"].num();
      g.known_bug_atol = (*t)["atol"].num();
    }
    g.isolate = c["keops"]["isolate"].boolean();
    if (const json* r = c.find("ranges"))
      for (const json& f : r->items()) g.ranges.push_back(f.str());
    if (const json* b = c.find("batch")) g.batch = b->integer();
    for (const json& s : c["keops"]["stages"].items()) {
      stage st;
      st.formula = s["formula"].str();
      st.formula2 = s["formula2"].str();
      st.reduction_op = s["reduction_op"].str();
      st.opt_arg = int(s["opt_arg"].integer());
      st.axis = int(s["axis"].integer());
      st.dim = int(s["dim"].integer());
      for (const json& a : s["args"].items()) st.args.push_back(a.str());
      g.stages.push_back(std::move(st));
    }
    return g;
  }
};

// Element-wise |got - expected| <= atol + rtol |expected| (NaN matches NaN,
// infinities match themselves); on failure *why says where.
template <class T>
bool all_close(const T* got, const npy_array& expected, double rtol, double atol, std::string* why = nullptr) {
  const std::vector<double> e = expected.values<double>();
  for (std::size_t k = 0; k < e.size(); ++k) {
    const double g = double(got[k]);
    const bool same = (std::isnan(g) && std::isnan(e[k])) || g == e[k] ||
                      (std::isfinite(g) && std::isfinite(e[k]) && std::abs(g - e[k]) <= atol + rtol * std::abs(e[k]));
    if (!same) {
      if (why) *why = "element " + std::to_string(k) + ": got " + std::to_string(g) + ", expected " + std::to_string(e[k]);
      return false;
    }
  }
  return true;
}

} // namespace kops_conformance::golden
