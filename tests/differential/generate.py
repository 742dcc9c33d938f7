#!/usr/bin/env python3
"""Seeded generator of random well-typed kops formulas for the differential tests.

Writes tests/differential/cases/cases_<p>.hpp: COUNT random reductions (depth up to 5,
dims 1-8, every op group of the library) and GRADS random gradients, as

    inline constexpr auto case_<n> = <reduction>;
    inline constexpr auto case_<n>_check = kops_diff::forward{};       // or, for a gradient:
    inline constexpr auto case_<n>_check = kops_diff::fd(<reduction>, <variable>);
    inline constexpr std::int64_t case_<n>_M = ..., case_<n>_N = ...;
    inline constexpr const char* case_<n>_source = "<the same C++ text>";

split into PARTS headers cases_<p>.hpp, each with its X-macro list
KOPS_DIFF_CASES_<p>(X), one per translation unit tests/unit/differential_test_<p>.cpp
(they compile in parallel), and cases_gpu.hpp with KOPS_DIFF_CASES_GPU(X), the
subset tests/cuda/differential_test.cu runs.

A forward case is checked against the reduction's definition written out in
tests/differential/runner.hpp (the formula at every pair in double, then a plain
sum, extremum, stable sort or log-sum-exp); a gradient case `kops::grad(red, v, e)`
against central finite differences of that definition of `red`. Every forward
formula contains the variable of its reduced axis.

The headers are checked in; rerun
    python3 tests/differential/generate.py
to regenerate them (the same arguments give the same files).

Every formula is defined on all of its inputs: the data lie in [-1, 1] and the
ops that need a domain get one by construction (log(1 + a^2), sqrt(|a|),
1 / (2 + sin a), asin(sin(a) / 2), a complex division by a unit complex
number, ...), so a difference between a backend and the reference is a bug, not
a domain error. Each op carries tags:
    kink  not differentiable everywhere (abs, floor, comparisons, argmax, ...):
          kept out of the finite-difference gradient cases;
    sing  a derivative that is infinite somewhere the data can reach (sqrt(|a|),
          norm2 at 0, atan2 at (0, 0), ...): kept out of those and of the
          formulas that calculus ops (grad, diff, divergence, laplacian) differentiate;
bspline (no derivative) and softdtw_sqdist (no second derivative) appear only
where nothing differentiates them, and calculus ops are not nested.
"""
import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Dim-preserving unary templates ({a}: the operand) and their tags.
UNARY = [
    ("kops::sin({a})", ""),
    ("kops::cos({a})", ""),
    ("kops::abs({a})", "kink"),
    ("kops::square({a})", ""),
    ("kops::atan({a})", ""),
    ("kops::exp(-kops::square({a}))", ""),
    ("kops::exp(kops::sin({a}))", ""),
    ("kops::exp2(kops::cos({a}))", ""),
    ("kops::sqrt(kops::abs({a}))", "kink sing"),
    ("kops::sqrt(kops::cst<2> + kops::sin({a}))", ""),
    ("kops::log(kops::cst<1> + kops::square({a}))", ""),
    ("kops::inv(kops::cst<2> + kops::sin({a}))", ""),
    ("kops::rsqrt(kops::cst<1> + kops::square({a}))", ""),
    ("kops::asin(kops::sin({a}) / kops::cst<2>)", ""),
    ("kops::acos(kops::cst<1> / kops::cst<3> * kops::cos({a}))", ""),
    ("kops::sinxdivx({a})", ""),
    ("kops::xlogx(kops::abs({a}))", "kink sing"),
    ("-({a})", ""),
    ("kops::relu({a})", "kink"),
    ("kops::normalize({a})", "kink sing"),
    ("kops::pow<3>({a})", ""),
    ("kops::pow<-2>(kops::cst<2> + kops::cos({a}))", ""),
    ("kops::clamp({a}, -kops::cst<1> / kops::cst<2>, kops::cst<1> / kops::cst<3>)", "kink"),
    ("kops::clampint<-1, 1>(kops::cst<2> * {a})", "kink"),
    ("(kops::cst<3> * {a})", ""),
    ("kops::sign({a})", "kink"),
    ("kops::step({a})", "kink"),
    ("kops::floor(kops::cst<3> * {a})", "kink"),
    ("kops::round<1>({a})", "kink"),
    ("kops::mod(kops::cst<2> * {a}, kops::cst<1> / kops::cst<2>)", "kink"),
]
# Binary, dims equal or one of them 1 ({1, D} broadcasting).
BINARY = [
    ("({a} + {b})", ""),
    ("({a} - {b})", ""),
    ("({a} * {b})", ""),
    ("({a} / (kops::cst<1> + kops::square({b})))", ""),
    ("kops::atan2({a}, {b})", "kink sing"),
    ("kops::powf(kops::cst<1> + kops::square({a}), kops::sin({b}))", ""),
    ("kops::less_than({a}, {b})", "kink"),
    ("kops::less_or_equal({a}, {b})", "kink"),
    ("kops::ifelse({a}, {b}, kops::cos({b}))", "kink"),
    ("kops::ifelse({b}, kops::sin({a}), {a})", "kink"),
    ("(kops::equal({a}, {b}) + kops::not_equal({a}, kops::cst<0>))", "kink"),
]
# Two operands of the same dim k -> dim 1.
PAIR_TO_1 = [
    ("kops::dot({a}, {b})", ""),
    ("kops::sqdist({a}, {b})", ""),
]
# One operand of dim k -> dim 1.
TO_1 = [
    ("kops::sum({a})", ""),
    ("kops::sqnorm2({a})", ""),
    ("kops::norm2({a})", "kink sing"),
    ("kops::max({a})", "kink"),
    ("kops::min({a})", "kink"),
    ("kops::argmax({a})", "kink"),
    ("kops::argmin({a})", "kink"),
]
KERNELS = ["gauss_kernel", "cauchy_kernel", "inverse_multiquadric_kernel", "laplace_kernel"]


def allowed(tags, mode):
    t = tags.split()
    if mode == "all":
        return True
    if "sing" in t:
        return False
    return mode == "calc" or "kink" not in t


class Gen:
    def __init__(self, rng, dims, mode):
        self.rng = rng
        self.mode = mode  # "all": anything; "calc": differentiable twice; "fd": smooth
        self.vars = [("kops::vi<0, %d>" % dims[0], dims[0]), ("kops::vj<1, %d>" % dims[1], dims[1]),
                     ("kops::pm<2, %d>" % dims[2], dims[2])]

    def pick(self, table):
        return self.rng.choice([s for s, tags in table if allowed(tags, self.mode)])

    def leaf(self, d):
        r = self.rng
        exact = [v for v, k in self.vars if k == d]
        wider = [(v, k) for v, k in self.vars if k > d]
        narrower = [(v, k) for v, k in self.vars if k < d]
        opts = []
        opts += [("var", v) for v in exact] * 3
        opts += [("extract", vk) for vk in wider]
        opts += [("pad", vk) for vk in narrower]
        if d == 1:
            opts += [("cst", None)]
        if not opts or (d >= 2 and r.random() < 0.1):
            d1 = r.randint(1, d - 1) if d >= 2 else None
            if d1 is not None:
                return "kops::concat(%s, %s)" % (self.leaf(d1), self.leaf(d - d1))
            return "kops::cst<2>"
        kind, what = r.choice(opts)
        if kind == "var":
            return what
        if kind == "cst":
            return r.choice(["kops::cst<2>", "(kops::cst<1> / kops::cst<3>)", "kops::cst<-1>"])
        v, k = what
        if kind == "pad":  # a narrower variable written into a wider zero vector
            if k == 1 and r.random() < 0.5:
                return "kops::elem_t<%d, %d>(%s)" % (d, r.randint(0, d - 1), v)
            return "kops::extract_t<%d, %d>(%s)" % (r.randint(0, d - k), d, v)
        if d == 1:
            return "kops::elem<%d>(%s)" % (r.randint(0, k - 1), v)
        return "kops::extract<%d, %d>(%s)" % (r.randint(0, k - d), d, v)

    def positive1(self, sub):
        """A dim-1 formula > 0 (a kernel scale, a temperature)."""
        return "(kops::cst<1> / kops::cst<2> + kops::square(%s))" % self.gen(sub, 1)

    def gen(self, depth, d):
        r = self.rng
        if depth == 0 or r.random() < 0.15:
            return self.leaf(d)
        choices = ["unary"] * 4 + ["binary"] * 4
        if d == 1:
            choices += ["to1"] * 3 + ["pair1"] * 2 + ["weighted"]
            if self.mode != "calc" and r.random() < 0.3:
                choices += ["softdtw"]
        if d >= 2:
            choices += ["concat", "extract", "from1"]
            if any(d * m <= 8 for m in range(1, 9)):
                choices += ["matvec", "vecmat"]
            if any(d % p == 0 and 1 < p < d for p in range(2, d)):
                choices += ["tensorprod", "tensordot", "kron"]
            if d % 2 == 0:
                choices += ["complex"] * 2
        if self.mode != "fd" or d <= 4:
            choices += ["kernel"]
        if self.mode == "all" and d <= 4 and r.random() < 0.3:
            choices += ["bspline"]
        if self.mode == "all" and depth >= 2:
            choices += ["calculus"] * 2
        c = r.choice(choices)
        sub = depth - 1
        if c == "unary":
            return self.pick(UNARY).format(a=self.gen(sub, d))
        if c == "binary":
            db = 1 if (d > 1 and r.random() < 0.3) else d
            a, b = self.gen(sub, d), self.gen(sub, db)
            if r.random() < 0.5 and db == d:
                a, b = b, a
            return self.pick(BINARY).format(a=a, b=b)
        if c == "to1":
            k = r.randint(1, 8)
            return self.pick(TO_1).format(a=self.gen(sub, k))
        if c == "pair1":
            k = r.randint(1, 8)
            return self.pick(PAIR_TO_1).format(a=self.gen(sub, k), b=self.gen(sub, k))
        if c == "weighted":  # weight dim 1 (isotropic), k (diagonal) or k*k (full)
            k = r.randint(1, 2 if r.random() < 0.5 else 8)
            s = r.choice([1, k] + ([k * k] if k * k <= 8 else []))
            w = "kops::square(%s)" % self.gen(sub, s)
            if r.random() < 0.5:
                return "kops::weighted_sqnorm(%s, %s)" % (w, self.gen(sub, k))
            return "kops::weighted_sqdist(%s, %s, %s)" % (w, self.gen(sub, k), self.gen(sub, k))
        if c == "softdtw":
            n, m = r.randint(1, 5), r.randint(1, 5)
            return "kops::softdtw_sqdist(%s, %s, %s)" % (self.gen(sub, n), self.gen(sub, m), self.positive1(sub))
        if c == "concat":
            d1 = r.randint(1, d - 1)
            return "kops::concat(%s, %s)" % (self.gen(sub, d1), self.gen(sub, d - d1))
        if c == "extract":
            n = r.randint(d, 8)
            return "kops::extract<%d, %d>(%s)" % (r.randint(0, n - d), d, self.gen(sub, n))
        if c == "from1":  # dim 1 -> d
            forms = ["kops::sum_t<%d>(%s)" % (d, self.gen(sub, 1)),
                     "kops::elem_t<%d, %d>(%s)" % (d, r.randint(0, d - 1), self.gen(sub, 1))]
            if allowed("kink", self.mode):
                forms.append("kops::one_hot<%d>(kops::cst<%d> * kops::abs(%s))" % (d, d, self.gen(sub, 1)))
            return r.choice(forms)
        if c == "matvec":
            m = r.choice([m for m in range(1, 9) if d * m <= 8])
            return "kops::matvecmult(%s, %s)" % (self.gen(sub, d * m), self.gen(sub, m))
        if c == "vecmat":
            n = r.choice([n for n in range(1, 9) if n * d <= 8])
            return "kops::vecmatmult(%s, %s)" % (self.gen(sub, n), self.gen(sub, n * d))
        if c == "tensorprod":
            p = r.choice([p for p in range(2, d) if d % p == 0])
            return "kops::tensorprod(%s, %s)" % (self.gen(sub, p), self.gen(sub, d // p))
        if c == "tensordot":  # a matrix product (m x k)(k x n), d = m n
            m = r.choice([m for m in range(2, d) if d % m == 0])
            n = d // m
            k = r.choice([k for k in range(1, 4) if m * k <= 8 and k * n <= 8])
            return ("kops::tensordot<kops::dims<%d, %d>, kops::dims<%d, %d>, kops::axes<1>, kops::axes<0>>(%s, %s)"
                    % (m, k, k, n, self.gen(sub, m * k), self.gen(sub, k * n)))
        if c == "kron":  # shapes (p0, p1) and (q0, q1), d = p0 q0 p1 q1
            p = r.choice([p for p in range(2, d) if d % p == 0])
            q = d // p
            p0 = r.choice([x for x in range(1, p + 1) if p % x == 0])
            q0 = r.choice([x for x in range(1, q + 1) if q % x == 0])
            return ("kops::kron<kops::dims<%d, %d>, kops::dims<%d, %d>>(%s, %s)"
                    % (p0, p // p0, q0, q // q0, self.gen(sub, p), self.gen(sub, q)))
        if c == "complex":
            h = d // 2
            a, b = self.gen(sub, d), self.gen(sub, d)
            forms = [
                ("kops::complex_mult(%s, %s)" % (a, b), ""),
                ("kops::conj(%s)" % a, ""),
                ("kops::real2complex(kops::complex_abs(%s))" % a, "kink sing"),
                ("kops::imag2complex(kops::complex_angle(%s))" % a, "kink sing"),
                ("kops::real2complex(kops::complex_square_abs(%s))" % a, ""),
                ("kops::complex_divide(%s, kops::complex_exp1j(%s))" % (a, self.gen(sub, h)), ""),
                ("kops::complex_exp(kops::sin(%s))" % a, ""),
                ("kops::complex_real_scal(%s, %s)" % (self.gen(sub, 1), a), ""),
                ("kops::complex_add(%s, %s)" % (a, b), ""),
                ("kops::complex_subtract(%s, %s)" % (a, b), ""),
                ("kops::complex_sum_t<%d>(kops::complex_sum(%s))" % (d, a), ""),
                ("(kops::real2complex(kops::real(%s)) + kops::imag2complex(kops::imag(%s)))" % (a, b), ""),
            ]
            return self.pick(forms)
        if c == "kernel":
            k = r.randint(1, 4)
            x, y = self.gen(sub, k), self.gen(sub, k)
            scale = self.positive1(sub)
            forms = [("kops::%s(%s, %s, %s, %s)" % (kern, scale, x, y, self.gen(sub, d)),
                      "kink sing" if kern == "laplace_kernel" else "") for kern in KERNELS]
            kk = r.randint(1, 3)
            forms.append(("kops::sum_gauss_kernel(kops::square(%s), %s, %s, %s, %s)"
                          % (self.gen(sub, kk), self.gen(sub, kk), x, y, self.gen(sub, d)), ""))
            if d >= 2:
                xd, yd = self.gen(sub, d), self.gen(sub, d)
                forms.append(("kops::divfree_gauss_kernel(%s, %s, %s, %s)" % (scale, xd, yd, self.gen(sub, d)), ""))
                forms.append(("kops::curlfree_gauss_kernel(%s, %s, %s, %s)" % (scale, xd, yd, self.gen(sub, d)), ""))
            return self.pick(forms)
        if c == "bspline":  # knots -1, -1/2, 0, 1/2, 1; order 4 - d gives dim d
            knots = ("kops::concat(kops::cst<-1>, kops::concat(-kops::cst<1> / kops::cst<2>, kops::concat(kops::zero<1>, "
                     "kops::concat(kops::cst<1> / kops::cst<2>, kops::cst<1>))))")
            return "kops::bspline<%d>(%s, kops::sin(%s))" % (4 - d, knots, self.gen(sub, 1))
        if c == "calculus":
            return self.calculus(sub, d)
        raise AssertionError(c)

    def calculus(self, sub, d):
        """grad, diff, divergence or laplacian of a small formula made of twice
        differentiable ops, with respect to a variable of dim <= 4 (divergence and
        laplacian: <= 3; each costs one derivative per component)."""
        r = self.rng
        inner = Gen(r, [k for _, k in self.vars], "calc")
        depth = min(sub, 2)
        forms = []
        same = [v for v, k in self.vars if k == d and k <= 4]
        if same:  # grad(f, v, g): dim v
            k = r.randint(1, 3)
            forms.append("kops::grad(%s, %s, %s)" % (inner.gen(depth, k), r.choice(same), inner.gen(depth - 1, k)))
        small = [(v, k) for v, k in self.vars if k <= 4]
        if small:  # diff(f, v, u): dim f
            v, k = r.choice(small)
            forms.append("kops::diff(%s, %s, %s)" % (inner.gen(depth, d), v, inner.gen(depth - 1, k)))
        smaller = [(v, k) for v, k in self.vars if k <= 3]
        if d == 1 and smaller:
            v, k = r.choice(smaller)
            forms.append("kops::divergence(%s, %s)" % (inner.gen(depth, k), v))
            forms.append("kops::laplacian(%s, %s)" % (inner.gen(1, 1), v))
        if not forms:
            return self.gen(sub, d)
        return r.choice(forms)


def sizes(rng, reduced_min, top):
    return rng.randint(1, top), rng.randint(max(1, reduced_min), top)


# Longest C++ text of a case: a cap on compile time (a case is drawn again when longer).
MAX_FORWARD, MAX_GRADIENT = 700, 400


def forward_case(rng):
    """A reduction of a formula that may use any op; sizes (M, N)."""
    while True:
        case = forward_draw(rng)
        # The reduced axis must matter: a formula without its variable makes
        # every term of a row equal (an extremum at index 0, a sum N times a term).
        reduced = "kops::vj<1, " if case[0].endswith("kops::axis_j)") else "kops::vi<0, "
        if len(case[0]) <= MAX_FORWARD and reduced in case[0]:
            return case


def forward_draw(rng):
    dims = [rng.randint(1, 8) for _ in range(3)]
    g = Gen(rng, dims, "all")
    depth = rng.randint(2, 5)
    axis = rng.choice(["kops::axis_i", "kops::axis_j"])
    kind = rng.random()
    k_min = 1
    if kind < 0.40:
        red = "kops::sum_reduction(%s, %s)" % (g.gen(depth, rng.randint(1, 4)), axis)
    elif kind < 0.50:
        red = "%s(%s, %s)" % (rng.choice(["kops::max_reduction", "kops::min_reduction"]), g.gen(depth, rng.randint(1, 3)), axis)
    elif kind < 0.60:
        red = "%s(%s, %s)" % (rng.choice(["kops::argmax_reduction", "kops::argmin_reduction", "kops::min_argmin_reduction",
                                          "kops::max_argmax_reduction"]), g.gen(depth, rng.randint(1, 3)), axis)
    elif kind < 0.70:
        k_min = rng.randint(1, 4)
        red = "%s<%d>(%s, %s)" % (rng.choice(["kops::kmin_reduction", "kops::argkmin_reduction",
                                              "kops::kmin_argkmin_reduction"]), k_min, g.gen(depth, rng.randint(1, 2)), axis)
    elif kind < 0.80:
        red = "kops::logsumexp_reduction(%s, %s)" % (g.gen(depth, 1), axis)
    elif kind < 0.86:
        red = "kops::logsumexp_reduction(%s, kops::exp(%s), %s)" % (g.gen(depth, 1), g.gen(depth - 1, rng.randint(1, 3)), axis)
    else:
        red = "kops::sumsoftmaxweight_reduction(%s, %s, %s)" % (g.gen(depth, 1), g.gen(depth - 1, rng.randint(1, 3)), axis)
    M, N = rng.randint(1, 70), rng.randint(1, 70)
    if axis == "kops::axis_j":
        N = max(N, k_min)
    else:
        M = max(M, k_min)
    return red, "kops_diff::forward{}", M, N


def gradient_case(rng):
    """kops::grad(red, v, e) of a reduction of a smooth formula, checked by finite differences."""
    while True:
        dims = [rng.randint(1, 6) for _ in range(3)]
        g = Gen(rng, dims, "fd")
        depth = rng.randint(2, 4)
        axis = rng.choice(["kops::axis_i", "kops::axis_j"])
        kind = rng.random()
        if kind < 0.45:
            dim = rng.randint(1, 3)
            red = "kops::sum_reduction(%s, %s)" % (g.gen(depth, dim), axis)
        elif kind < 0.60:
            dim = 1
            red = "kops::logsumexp_reduction(%s, %s)" % (g.gen(depth, 1), axis)
        elif kind < 0.68:
            dim = rng.randint(1, 2)
            red = "kops::logsumexp_reduction(%s, kops::exp(%s), %s)" % (g.gen(depth, 1), g.gen(depth - 1, dim), axis)
        elif kind < 0.85:
            dim = rng.randint(1, 2)
            red = "kops::sumsoftmaxweight_reduction(%s, %s, %s)" % (g.gen(depth, 1), g.gen(depth - 1, dim), axis)
        else:
            dim = rng.randint(1, 2)
            red = "%s(%s, %s)" % (rng.choice(["kops::max_reduction", "kops::min_reduction"]), g.gen(depth, dim), axis)
        row = "kops::vi" if axis == "kops::axis_j" else "kops::vj"
        cands = [v for v, _ in g.vars if v in red]
        if "kops::max_reduction" in red or "kops::min_reduction" in red:  # no gradient on the reduced axis
            cands = [v for v in cands if v.startswith(row) or v.startswith("kops::pm")]
        if cands and len(red) <= MAX_GRADIENT:
            break
    v = rng.choice(cands)
    grad = "kops::grad(%s, %s, %s<3, %d>)" % (red, v, row, dim)
    return grad, "kops_diff::fd(%s, %s)" % (red, v), rng.randint(1, 20), rng.randint(1, 24)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--count", type=int, default=300, help="forward cases")
    ap.add_argument("--grads", type=int, default=60, help="finite-difference gradient cases")
    ap.add_argument("--parts", type=int, default=6, help="translation units (tests/unit/differential_test_<p>.cpp)")
    ap.add_argument("--gpu-every", type=int, default=12, help="the GPU test runs every n-th case")
    ap.add_argument("--out", default=os.path.join(HERE, "cases"), help="directory of the headers")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if the headers in --out differ from what these arguments generate")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [forward_case(rng) for _ in range(a.count)] + [gradient_case(rng) for _ in range(a.grads)]
    total = len(cases)
    command = ("tests/differential/generate.py --seed %d --count %d --grads %d --parts %d --gpu-every %d"
               % (a.seed, a.count, a.grads, a.parts, a.gpu_every))
    # Parts interleave the cases, so that each holds forward and gradient cases
    # alike. Each part is a header of its own: a translation unit instantiates
    # only its own formulas (defining all of them costs ~30 s in every unit).
    parts = [("cases_%d.hpp" % p, "KOPS_DIFF_CASES_%d" % p, list(range(p, total, a.parts))) for p in range(a.parts)]
    gpu = list(range(0, a.count, a.gpu_every)) + list(range(a.count, total, a.gpu_every))
    parts.append(("cases_gpu.hpp", "KOPS_DIFF_CASES_GPU", gpu))
    stale = []
    for name, macro, ids in parts:
        lines = [
            "// Generated by %s: do not edit." % command,
            "// %d of the %d random well-typed reductions (%d forward, %d gradients); the tests that"
            % (len(ids), total, a.count, a.grads),
            "// run them: tests/unit/differential_test_<p>.cpp, tests/cuda/differential_test.cu.",
            "#pragma once",
            "",
            "#include <cstdint>",
            "",
            "#include <kops/kops.hpp>",
            "",
            "#include \"../case_kinds.hpp\"",
            "",
            "namespace kops_diff {",
            "",
        ]
        for n in ids:
            src, check, M, N = cases[n]
            lines.append("inline constexpr auto case_%d = %s;" % (n, src))
            lines.append("inline constexpr auto case_%d_check = %s;" % (n, check))
            lines.append("inline constexpr std::int64_t case_%d_M = %d, case_%d_N = %d;" % (n, M, n, N))
            lines.append("inline constexpr const char* case_%d_source = \"%s\";" % (n, src))
        lines += ["", "} // namespace kops_diff", ""]
        lines.append("#define %s(X) " % macro + " ".join("X(%d)" % n for n in ids))
        text = "\n".join(lines) + "\n"
        path = os.path.join(a.out, name)
        if a.check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
        else:
            with open(path, "w") as f:
                f.write(text)
    if a.check:
        if stale:
            print("generate.py --check: not what `python3 %s` writes (edit the generator, then rerun it): %s"
                  % (command, ", ".join(stale)))
            sys.exit(1)
        print("generate.py --check: %d headers up to date" % len(parts))


if __name__ == "__main__":
    main()
