// The check both versions of the example print: the first rows of
// a_i = sum_j exp(-g |x_i - y_j|^2) b_j against a direct loop in double. The
// error is measured relative to sum_j |term|, the scale of float rounding in a sum.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

struct check_result {
  std::int64_t rows;
  double max_error;
  bool ok() const { return max_error < 1e-5; }
};

inline check_result check_against_direct_loop(const std::vector<float>& out, const std::vector<float>& px,
                                              const std::vector<float>& py, const std::vector<float>& pb,
                                              float g, std::int64_t M, std::int64_t N) {
  const std::int64_t checked = M < 256 ? M : 256;
  double max_err = 0;
  for (std::int64_t i = 0; i < checked; ++i) {
    double s = 0, sabs = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double t = double(px[i * 3 + k]) - double(py[j * 3 + k]);
        d2 += t * t;
      }
      const double term = std::exp(-double(g) * d2) * double(pb[j]);
      s += term;
      sabs += std::abs(term);
    }
    max_err = std::fmax(max_err, std::abs(out[i] - s) / (sabs + 1e-30));
  }
  return {checked, max_err};
}
