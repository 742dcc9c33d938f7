// NumPy .npy files: a small reader and writer, for the oracle (kops_add_oracle,
// docs/conformance.md) and for whoever exchanges arrays with Python.
//
//   kops::npy::array a = kops::npy::read("x.npy");          // any rank, dtype a.type
//   std::vector<float> x = kops::npy::read_as<float>("x.npy", shape);  // dtype checked
//   kops::npy::write("out.npy", std::span<const float>(v), {M, 3});
//
// The format (numpy/lib/format.py, "NEP 1"): the magic "\x93NUMPY", a major and
// a minor version byte, the header's length (2 bytes little-endian in version
// 1.0, 4 bytes in 2.0 and 3.0), the header -- a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and ended by '\n' -- then the data, C order. Read: versions 1.0, 2.0
// and 3.0; little-endian (or byte-order free) '<f2', '<f4', '<f8', '<i8'.
// Refused with a kops::error naming the file: Fortran order, big-endian data,
// any other dtype, a truncated file, a malformed header. Written: version 1.0
// (2.0 when the header needs it), the header padded so that the data start at
// a multiple of 64 bytes, as numpy writes them (byte for byte: tests/unit/npy_test.cpp).
// Errors as kops::error (kops::detail::fail: the error handler without exceptions,
// which returns an empty array / false).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <kops/core/error.hpp>
#include <kops/core/half.hpp>

/// NumPy .npy files: read and write arrays of float16, float32, float64 and
/// int64 in C order (docs/conformance.md, the oracle's inputs and outputs).
namespace kops::npy {

/// The element types kops reads and writes: numpy's float16, float32, float64, int64.
enum class dtype { float16, float32, float64, int64 };

/// numpy's name of a dtype ("float32"), for messages and listings.
inline const char* name(dtype t) {
  switch (t) {
  case dtype::float16: return "float16";
  case dtype::float32: return "float32";
  case dtype::float64: return "float64";
  default: return "int64";
  }
}
/// Bytes per element.
inline std::size_t item_size(dtype t) { return t == dtype::float16 ? 2 : t == dtype::float32 ? 4 : 8; }

/// The dtype of a C++ element type: float, double, std::int64_t, kops::half.
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr dtype value = dtype::float32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::float64; };
template <> struct dtype_of<std::int64_t> { static constexpr dtype value = dtype::int64; };
template <> struct dtype_of<kops::half> { static constexpr dtype value = dtype::float16; };

/// An array as a file holds it: its dtype, its shape (empty for a 0-d array)
/// and its bytes, C order, little-endian.
struct array {
  dtype type = dtype::float64;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;
  /// Number of elements: the product of the shape (1 for a 0-d array).
  std::int64_t size() const {
    std::int64_t n = 1;
    for (std::int64_t s : shape) n *= s;
    return n;
  }
};

/// "(3, 4)", "(5,)", "()": a shape as Python writes a tuple.
inline std::string shape_string(std::span<const std::int64_t> shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) s += ", ";
    s += std::to_string(shape[k]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace detail {

static_assert(sizeof(float) == 4 && sizeof(double) == 8, "kops::npy: IEEE float and double expected");

inline bool little_endian_host() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

// The header dict's value of `key` ('descr': '<f4' gives <f4, 'shape': (3, 4)
// gives 3, 4): the text after the key's colon, up to the closing quote or
// parenthesis, or up to the next comma for a bare value. False when absent.
inline bool header_value(const std::string& h, const char* key, std::string& value) {
  const std::string quoted[2] = {std::string("'") + key + "'", std::string("\"") + key + "\""};
  std::size_t at = std::string::npos;
  for (const std::string& q : quoted)
    if ((at = h.find(q)) != std::string::npos) {
      at += q.size();
      break;
    }
  if (at == std::string::npos) return false;
  at = h.find(':', at);
  if (at == std::string::npos) return false;
  ++at;
  while (at < h.size() && h[at] == ' ') ++at;
  if (at >= h.size()) return false;
  const char open = h[at];
  const char close = open == '(' ? ')' : (open == '\'' || open == '"') ? open : ',';
  const std::size_t from = close == ',' ? at : at + 1;
  const std::size_t stop = close == ',' ? h.find_first_of(",}", from) : h.find(close, from);
  if (stop == std::string::npos) return false;
  value = h.substr(from, stop - from);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return true;
}

inline bool parse_dtype(const std::string& d, dtype& t) {
  if (d.size() != 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return false;
  if (d[0] == '=' && !little_endian_host()) return false;
  const std::string kind = d.substr(1);
  if (kind == "f2") t = dtype::float16;
  else if (kind == "f4") t = dtype::float32;
  else if (kind == "f8") t = dtype::float64;
  else if (kind == "i8") t = dtype::int64;
  else return false;
  return true;
}

// "3, 4" (or "5," or "") into {3, 4}; false when it is not a tuple of integers.
inline bool parse_shape(const std::string& s, std::vector<std::int64_t>& shape) {
  shape.clear();
  std::size_t k = 0;
  while (k < s.size()) {
    while (k < s.size() && (s[k] == ' ' || s[k] == ',')) ++k;
    if (k == s.size()) break;
    std::int64_t v = 0;
    bool digit = false;
    while (k < s.size() && s[k] >= '0' && s[k] <= '9') {
      v = v * 10 + (s[k++] - '0');
      digit = true;
      if (v > (std::int64_t(1) << 48)) return false;
    }
    if (k < s.size() && s[k] == 'L') ++k;  // Python 2's long
    if (!digit || (k < s.size() && s[k] != ',' && s[k] != ' ')) return false;
    shape.push_back(v);
  }
  return true;
}

struct file_closer {
  std::FILE* f;
  ~file_closer() {
    if (f) std::fclose(f);
  }
};

} // namespace detail

/// Reads a .npy file (see the file comment for what is accepted).
inline array read(const std::string& path) {
  array a;
  const detail::file_closer f{std::fopen(path.c_str(), "rb")};
  if (!f.f) {
    kops::detail::fail("kops::npy::read: cannot open %s: %s", path.c_str(), std::strerror(errno));
    return {};
  }
  unsigned char pre[12];
  if (std::fread(pre, 1, 10, f.f) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0) {
    kops::detail::fail("kops::npy::read: %s is not a .npy file (no \\x93NUMPY magic)", path.c_str());
    return {};
  }
  const int major = pre[6], minor = pre[7];
  std::uint32_t header_len = 0;
  if (major == 1) {
    header_len = std::uint32_t(pre[8]) | std::uint32_t(pre[9]) << 8;
  } else if (major == 2 || major == 3) {
    if (std::fread(pre + 10, 1, 2, f.f) != 2) {
      kops::detail::fail("kops::npy::read: %s: truncated header", path.c_str());
      return {};
    }
    header_len = std::uint32_t(pre[8]) | std::uint32_t(pre[9]) << 8 | std::uint32_t(pre[10]) << 16 |
                 std::uint32_t(pre[11]) << 24;
  } else {
    kops::detail::fail("kops::npy::read: %s: format version %d.%d, expected 1.0, 2.0 or 3.0", path.c_str(), major,
                       minor);
    return {};
  }
  if (header_len > (1u << 24)) {
    kops::detail::fail("kops::npy::read: %s: header of %u bytes, expected a few hundred", path.c_str(), header_len);
    return {};
  }
  std::string h(header_len, '\0');
  if (std::fread(h.data(), 1, header_len, f.f) != header_len) {
    kops::detail::fail("kops::npy::read: %s: truncated header", path.c_str());
    return {};
  }
  std::string descr, order, shape;
  if (!detail::header_value(h, "descr", descr) || !detail::header_value(h, "fortran_order", order) ||
      !detail::header_value(h, "shape", shape)) {
    kops::detail::fail("kops::npy::read: %s: malformed header, expected 'descr', 'fortran_order' and 'shape', "
                       "given %s", path.c_str(), h.c_str());
    return {};
  }
  if (!detail::parse_dtype(descr, a.type)) {
    kops::detail::fail("kops::npy::read: %s: dtype '%s' is not read, expected little-endian '<f2', '<f4', "
                       "'<f8' or '<i8'", path.c_str(), descr.c_str());
    return {};
  }
  if (order != "False") {
    kops::detail::fail("kops::npy::read: %s is in Fortran order, expected C order (save np.ascontiguousarray(a))",
                       path.c_str());
    return {};
  }
  if (!detail::parse_shape(shape, a.shape)) {
    kops::detail::fail("kops::npy::read: %s: malformed shape (%s)", path.c_str(), shape.c_str());
    return {};
  }
  const std::uint64_t bytes = std::uint64_t(a.size()) * item_size(a.type);
  a.bytes.resize(bytes);
  if (bytes > 0 && std::fread(a.bytes.data(), 1, bytes, f.f) != bytes) {
    kops::detail::fail("kops::npy::read: %s is truncated: shape %s of %s needs %llu bytes of data", path.c_str(),
                       shape_string(a.shape).c_str(), name(a.type), (unsigned long long)bytes);
    return {};
  }
  if (!detail::little_endian_host() && item_size(a.type) > 1) {
    for (std::size_t k = 0; k < bytes; k += item_size(a.type))
      for (std::size_t l = 0, r = item_size(a.type) - 1; l < r; ++l, --r) std::swap(a.bytes[k + l], a.bytes[k + r]);
  }
  return a;
}

/// The elements of an array as T, which must be its dtype (no conversion:
/// a float64 file read as float is an error, naming `what`, e.g. the file).
template <class T>
std::vector<T> values(const array& a, const std::string& what) {
  if (a.type != dtype_of<T>::value) {
    kops::detail::fail("kops::npy::read: %s holds %s values, expected %s", what.c_str(), name(a.type),
                       name(dtype_of<T>::value));
    return {};
  }
  std::vector<T> v(std::size_t(a.size()));
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), v.size() * sizeof(T));
  return v;
}

/// Reads `path`, which must hold T values; its shape into `shape`.
template <class T>
std::vector<T> read_as(const std::string& path, std::vector<std::int64_t>& shape) {
  array a = read(path);
  shape = a.shape;
  return values<T>(a, path);
}

/// Writes `count` elements of dtype `t` at `data` (C order, host byte order),
/// of shape `shape`, to `path`. False (after the error handler, in a build
/// without exceptions) when the file cannot be written.
inline bool write(const std::string& path, dtype t, std::span<const std::int64_t> shape, const void* data) {
  std::int64_t count = 1;
  for (std::int64_t s : shape) count *= s;
  const char* descr = t == dtype::float16 ? "<f2" : t == dtype::float32 ? "<f4" : t == dtype::float64 ? "<f8" : "<i8";
  std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_string(shape) +
                  ", }";
  // numpy: the data start at a multiple of 64 bytes; version 2.0 past 65535 header bytes.
  const bool v2 = h.size() + 1 + 10 > 65535;
  const std::size_t pre = v2 ? 12 : 10;
  h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(v2 ? 2 : 1), 0};
  for (std::size_t k = 0; k < pre - 8; ++k) head[8 + k] = static_cast<unsigned char>(h.size() >> (8 * k));
  const detail::file_closer f{std::fopen(path.c_str(), "wb")};
  if (!f.f) return kops::detail::fail("kops::npy::write: cannot open %s: %s", path.c_str(), std::strerror(errno));
  std::vector<unsigned char> swapped;
  const std::size_t size = item_size(t), bytes = std::size_t(count) * size;
  if (!detail::little_endian_host() && size > 1) {
    swapped.assign(static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + bytes);
    for (std::size_t k = 0; k < bytes; k += size)
      for (std::size_t l = 0, r = size - 1; l < r; ++l, --r) std::swap(swapped[k + l], swapped[k + r]);
    data = swapped.data();
  }
  const bool ok = std::fwrite(head, 1, pre, f.f) == pre && std::fwrite(h.data(), 1, h.size(), f.f) == h.size() &&
                  (bytes == 0 || std::fwrite(data, 1, bytes, f.f) == bytes) && std::fflush(f.f) == 0;
  if (!ok) return kops::detail::fail("kops::npy::write: writing %s failed: %s", path.c_str(), std::strerror(errno));
  return true;
}

/// Writes `v` (T: float, double, std::int64_t, kops::half) with shape `shape`,
/// whose product must be v.size().
template <class T>
bool write(const std::string& path, std::span<const T> v, std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (std::int64_t s : shape) count *= s;
  if (count != std::int64_t(v.size()))
    return kops::detail::fail("kops::npy::write: %s: shape %s holds %lld values, given %zu", path.c_str(),
                              shape_string(shape).c_str(), (long long)count, v.size());
  return write(path, dtype_of<T>::value, shape, v.data());
}
/// write(path, values, {rows, dim}): as above, the shape given as a list.
template <class T>
bool write(const std::string& path, std::span<const T> v, std::initializer_list<std::int64_t> shape) {
  return write(path, v, std::span<const std::int64_t>(shape.begin(), shape.size()));
}

} // namespace kops::npy
