// kops::npy (io/npy.hpp), against files numpy itself wrote (tests/data/npy,
// made by generate.py there): each is read back with its dtype, shape and
// values; kops::npy::write writes the same bytes as numpy for the same array;
// what is refused (Fortran order, big-endian data, another dtype, a truncated
// file, a missing one) is refused with a message naming the file.
#include "test_support.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <kops/io/npy.hpp>

#ifndef KOPS_TEST_DATA_DIR
#error "KOPS_TEST_DATA_DIR: tests/data, set by tests/CMakeLists.txt"
#endif

namespace {

using Catch::Matchers::Contains;

std::string data(const char* name) { return std::string(KOPS_TEST_DATA_DIR) + "/npy/" + name + ".npy"; }

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string scratch(const char* name) { return std::string("kops_npy_test_") + name + ".npy"; }

TEST_CASE("npy: numpy's files are read with their dtype, shape and values", "[npy]") {
  std::vector<std::int64_t> shape;
  SECTION("float32 (2, 3), version 1.0") {
    const auto v = kops::npy::read_as<float>(data("f4_2x3_v1"), shape);
    REQUIRE(shape == std::vector<std::int64_t>{2, 3});
    REQUIRE(v == std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f});
  }
  SECTION("float64 (3,), version 2.0") {
    const auto v = kops::npy::read_as<double>(data("f8_3_v2"), shape);
    REQUIRE(shape == std::vector<std::int64_t>{3});
    REQUIRE(v == std::vector<double>{1.0, -2.5, 1e300});
  }
  SECTION("int64 (2, 2), version 3.0") {
    const auto v = kops::npy::read_as<std::int64_t>(data("i8_2x2_v3"), shape);
    REQUIRE(shape == std::vector<std::int64_t>{2, 2});
    REQUIRE(v == std::vector<std::int64_t>{1, -2, 3, std::int64_t(1) << 40});
  }
  SECTION("float16 (3,)") {
    const auto v = kops::npy::read_as<kops::half>(data("f2_3_v1"), shape);
    REQUIRE(shape == std::vector<std::int64_t>{3});
    REQUIRE(v.size() == 3);
    REQUIRE(v[0].bits() == 0x3c00);  // 1.0
    REQUIRE(v[1].bits() == 0xb800);  // -0.5
    REQUIRE(v[2].bits() == 0x7bff);  // 65504, the largest finite half
  }
  SECTION("a 0-d array and an empty one") {
    REQUIRE(kops::npy::read_as<double>(data("f8_0d_v1"), shape) == std::vector<double>{3.25});
    REQUIRE(shape.empty());
    REQUIRE(kops::npy::read_as<double>(data("f8_4x0_v1"), shape).empty());
    REQUIRE(shape == std::vector<std::int64_t>{4, 0});
  }
}

TEST_CASE("npy: kops::npy::write writes numpy's bytes", "[npy]") {
  const std::string out = scratch("write");
  SECTION("float32 (2, 3)") {
    const std::vector<float> v{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f};
    REQUIRE(kops::npy::write(out, std::span<const float>(v), {2, 3}));
    REQUIRE(bytes_of(out) == bytes_of(data("f4_2x3_v1")));
  }
  SECTION("float16 (3,)") {
    const std::vector<kops::half> v{kops::half::from_bits(0x3c00), kops::half::from_bits(0xb800),
                                    kops::half::from_bits(0x7bff)};
    REQUIRE(kops::npy::write(out, std::span<const kops::half>(v), {3}));
    REQUIRE(bytes_of(out) == bytes_of(data("f2_3_v1")));
  }
  SECTION("0-d and empty") {
    const std::vector<double> v{3.25};
    REQUIRE(kops::npy::write(out, std::span<const double>(v), {}));
    REQUIRE(bytes_of(out) == bytes_of(data("f8_0d_v1")));
    REQUIRE(kops::npy::write(out, std::span<const double>(), {4, 0}));
    REQUIRE(bytes_of(out) == bytes_of(data("f8_4x0_v1")));
  }
  SECTION("int64, read back") {
    const std::vector<std::int64_t> v{7, -1, std::int64_t(1) << 50};
    REQUIRE(kops::npy::write(out, std::span<const std::int64_t>(v), {3, 1}));
    std::vector<std::int64_t> shape;
    REQUIRE(kops::npy::read_as<std::int64_t>(out, shape) == v);
    REQUIRE(shape == std::vector<std::int64_t>{3, 1});
  }
  SECTION("a shape that is not the data's size") {
    const std::vector<float> v(5);
    REQUIRE_THROWS_WITH(kops::npy::write(out, std::span<const float>(v), {2, 3}),
                        Contains("kops::npy::write") && Contains("shape (2, 3) holds 6 values, given 5"));
  }
  std::remove(out.c_str());
}

TEST_CASE("npy: what is not read is refused, naming the file", "[npy]") {
  std::vector<std::int64_t> shape;
  REQUIRE_THROWS_WITH(kops::npy::read(data("f4_fortran")),
                      Contains("f4_fortran.npy is in Fortran order, expected C order"));
  REQUIRE_THROWS_WITH(kops::npy::read(data("f8_bigendian")),
                      Contains("f8_bigendian.npy: dtype '>f8' is not read, expected little-endian"));
  REQUIRE_THROWS_WITH(kops::npy::read(data("i4_2")), Contains("i4_2.npy: dtype '<i4' is not read"));
  REQUIRE_THROWS_WITH(kops::npy::read_as<float>(data("f8_3_v2"), shape),
                      Contains("f8_3_v2.npy holds float64 values, expected float32"));
  REQUIRE_THROWS_WITH(kops::npy::read(data("no_such_file")),
                      Contains("kops::npy::read: cannot open") && Contains("no_such_file.npy"));

  // A truncated copy of a numpy file, and a file that is not one.
  const std::string cut = scratch("truncated");
  auto b = bytes_of(data("f4_2x3_v1"));
  b.resize(b.size() - 4);
  std::ofstream(cut, std::ios::binary).write(b.data(), std::streamsize(b.size()));
  REQUIRE_THROWS_WITH(kops::npy::read(cut),
                      Contains("truncated: shape (2, 3) of float32 needs 24 bytes of data"));
  std::ofstream(cut, std::ios::binary) << "x,y\n1,2\n";
  REQUIRE_THROWS_WITH(kops::npy::read(cut), Contains("is not a .npy file"));
  std::remove(cut.c_str());
}

} // namespace
