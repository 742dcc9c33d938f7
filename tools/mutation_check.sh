#!/usr/bin/env bash
# Mutation run of the emulated GPU tests (issue 14; not part of CI): shows that
# the GPU tests built against kops::cuda_emulated catch the CUDA backend's
# classic bugs. For each mutation of tools/mutation_check.py (a missing
# __syncthreads of the tile loop, a tile one index too long or too short, a
# wrong GPU_2D scratch index, chunks combined in the wrong order, shared memory
# one element short):
#
#   1. copy include/ (a snapshot taken once at the start) to WORK/<id>/include
#      and apply the mutation there by exact string replacement; a pattern that
#      is not found exactly once stops the run (the code changed: update the
#      helper). The real tree is never modified.
#   2. build a lean test binary from the mutated headers: tests/cuda/{agreement,
#      schemes,reductions}_test.cu (KOPS_MUTATION_TESTS changes the list) as
#      C++ with g++ -O1, as tests/CMakeLists.txt builds kops_cuda_emulated_tests,
#      linked to a Catch2 main with a listener that logs each test case's start
#      and result on stderr (so a test that a sanitizer aborts is still named);
#      barrier mutations also get a -fsanitize=thread build, shared-memory-size
#      mutations an -fsanitize=address,undefined build (tools/sanitize.sh's flags).
#   3. run every test of it; the mutation is caught if a build's binary exits
#      non-zero (a failing test, a crash, a sanitizer or emulator report).
#
# The unmutated baseline is built and run the same way (each flavour the
# mutations need) first, and must pass.
#
#   bash tools/mutation_check.sh                 every mutation
#   bash tools/mutation_check.sh barrier-1 ...   only these (ids: python3 tools/mutation_check.py list)
#
# Environment: KOPS_MUTATION_JOBS (parallel compiles, default 2),
# KOPS_MUTATION_TESTS (test sources of tests/cuda without .cu), KOPS_MUTATION_TIMEOUT
# (seconds per test run, default 3600), KOPS_MUTATION_WORK (work folder, default
# a new /tmp/kops-mutation.XXXXXX; kept, with every log), KOPS_MUTATION_RESUME=1
# (with KOPS_MUTATION_WORK of a run that was interrupted: keep its finished
# builds' results; the rest is built from the same snapshot of include/).
#
# Prints the result table (markdown) and leaves it in WORK/results.md.
# Exit code: 0 when the baseline passes and every mutation is caught; 1 when
# the baseline fails or a mutation survives; 2 when a pattern is not found or a
# build fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
helper="$root/tools/mutation_check.py"
jobs="${KOPS_MUTATION_JOBS:-2}"
read -r -a tests <<<"${KOPS_MUTATION_TESTS:-reductions_test agreement_test schemes_test}"
run_timeout="${KOPS_MUTATION_TIMEOUT:-3600}"
work="${KOPS_MUTATION_WORK:-$(mktemp -d /tmp/kops-mutation.XXXXXX)}"
mkdir -p "$work"

if [ "$#" -gt 0 ]; then ids=("$@"); else read -r -a ids <<<"$(python3 "$helper" list)"; fi

log() { printf '[mutation %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
trap 'log "stopped by a signal"; exit 143' TERM INT HUP

# Every pattern must match the current code before anything is built.
python3 "$helper" check "$root/include"
resume="${KOPS_MUTATION_RESUME:-0}"
if [ "$resume" = 1 ] && [ -d "$work/pristine/include" ]; then
  # Every build of a run, resumed or not, uses the run's snapshot of include/.
  log "resuming the run in $work, on its snapshot of include/"
else
  resume=0
  rm -rf "$work/pristine"
  mkdir -p "$work/pristine"
  cp -a "$root/include" "$work/pristine/include"
fi
python3 "$helper" check "$work/pristine/include" >/dev/null
if [ "$resume" = 0 ]; then  # what the snapshot is, for the report
  { git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown
    git -C "$root" status --porcelain -- include 2>/dev/null | wc -l
    date -u '+%Y-%m-%d %H:%M UTC'; } >"$work/pristine/origin"
fi
done_already() { [ "$resume" = 1 ] && [ -f "$1/rc" ] && log "  $2: kept from the interrupted run"; }

declare -A flags=(
  [plain]="-O1"
  [tsan]="-O1 -fsanitize=thread -fno-omit-frame-pointer"
  [asan]="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
)
emulated="-x c++ -std=c++20 -DKOPS_CUDA_EMULATED=1 -DKOPS_TEST_EMULATED=1 -DKOPS_TESTS_WITH_KOKKOS=0 \
-Wno-unknown-pragmas"

# The Catch2 main (tests/unit_main/catch_main.cpp without Kokkos) plus a
# listener; it includes no kops header, so one object per flavour serves every
# mutation.
mkdir -p "$work/main"
cat >"$work/main/main.cpp" <<'EOF'
// Catch2 v2 main of the mutation run: tests/unit_main/catch_main.cpp (without
// Kokkos) plus a listener that logs each test case's start and outcome on
// stderr, unbuffered, so that the test a sanitizer or the emulator aborts is
// still known.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

struct mutation_listener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    std::fprintf(stderr, "@@mutation@@ start %s\n", info.name.c_str());
    std::fflush(stderr);
  }
  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    std::fprintf(stderr, "@@mutation@@ %s %s\n", stats.totals.assertions.failed == 0 ? "pass" : "fail",
                 stats.testInfo.name.c_str());
    std::fflush(stderr);
  }
};
CATCH_REGISTER_LISTENER(mutation_listener)

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
EOF

main_object() {  # flavour -> path of the main's object (built once)
  local fl="$1" obj="$work/main/main_$1.o"
  if [ ! -f "$obj" ]; then
    # shellcheck disable=SC2086
    g++ -std=c++20 ${flags[$fl]} -c "$work/main/main.cpp" -o "$obj.tmp" >"$work/main/build_$fl.log" 2>&1 || {
      cat "$work/main/build_$fl.log" >&2
      log "the Catch2 main does not build ($fl)" >&2
      exit 2
    }
    mv "$obj.tmp" "$obj"
  fi
  printf '%s\n' "$obj"
}

# build TREE FLAVOUR OUT: the test binary OUT/tests from the headers TREE/include.
build() {
  local tree="$1" fl="$2" out="$3" main
  main="$(main_object "$fl")"
  mkdir -p "$out"
  local inc="-I $tree/include/kops/cuda_emulated/shim -I $tree/include -include cuda_runtime.h"
  # One compile per test source, KOPS_MUTATION_JOBS at a time.
  if ! printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} sh -c \
      "g++ $emulated ${flags[$fl]} $inc -c '$root/tests/cuda/{}.cu' -o '$out/{}.o' >'$out/build_{}.log' 2>&1"; then
    cat "$out"/build_*.log >&2
    log "build failed: $out (logs above)"
    exit 2
  fi
  local objs=()
  for t in "${tests[@]}"; do objs+=("$out/$t.o"); done
  # shellcheck disable=SC2086
  if ! g++ ${flags[$fl]} "$main" "${objs[@]}" -o "$out/tests" >"$out/build_link.log" 2>&1; then
    cat "$out/build_link.log" >&2
    log "link failed: $out"
    exit 2
  fi
  rm -f "${objs[@]}"  # objects of mutated headers are of no further use
}

# run FLAVOUR OUT: every test of OUT/tests; OUT/rc, OUT/run.out, OUT/run.err.
run() {
  local fl="$1" out="$2" rc=0
  local envs=()
  case "$fl" in
    tsan) envs=(TSAN_OPTIONS="halt_on_error=1") ;;
    asan) envs=(ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1") ;;
  esac
  local t0=$SECONDS
  # (a sanitizer or emulator abort also makes bash print "Aborted" here)
  env "${envs[@]}" timeout -k 30 "$run_timeout" "$out/tests" >"$out/run.out" 2>"$out/run.err" || rc=$?
  echo "$rc" >"$out/rc"
  echo "$((SECONDS - t0))" >"$out/seconds"
  rm -f "$out/tests"
  local fails
  fails="$(grep -c '^@@mutation@@ fail ' "$out/run.err" || true)"
  log "  $fl: exit $rc after $((SECONDS - t0)) s, $fails failing test cases$(grep -q -E 'ThreadSanitizer|AddressSanitizer|runtime error:|kops::cuda_emulated:' "$out/run.err" && echo ', a sanitizer/emulator report' || true)"
}

needed=(plain)
for id in "${ids[@]}"; do
  for fl in $(python3 "$helper" flavors "$id"); do
    [[ " ${needed[*]} " == *" $fl "* ]] || needed+=("$fl")
  done
done

start=$(date +%s)
log "work folder $work; tests: ${tests[*]}; mutations: ${ids[*]}"
log "baseline (unmutated headers): ${needed[*]}"
for fl in "${needed[@]}"; do
  if done_already "$work/baseline/$fl" "$fl"; then continue; fi
  rm -rf "$work/baseline/$fl"
  build "$work/pristine" "$fl" "$work/baseline/$fl"
  run "$fl" "$work/baseline/$fl"
  if [ "$(cat "$work/baseline/$fl/rc")" != 0 ]; then
    python3 "$helper" summarize "$work" || true
    log "the unmutated baseline fails ($fl): see $work/baseline/$fl/run.out and run.err"
    exit 1
  fi
done

for id in "${ids[@]}"; do
  log "mutation $id"
  rm -rf "${work:?}/$id/include"
  mkdir -p "$work/$id"
  cp -a "$work/pristine/include" "$work/$id/include"
  python3 "$helper" apply "$id" "$work/$id/include"
  for fl in $(python3 "$helper" flavors "$id"); do
    if done_already "$work/$id/$fl" "$fl"; then continue; fi
    rm -rf "${work:?}/$id/$fl"
    build "$work/$id" "$fl" "$work/$id/$fl"
    run "$fl" "$work/$id/$fl"
  done
  rm -rf "${work:?}/$id/include"
done

minutes=$(( ($(date +%s) - start + 30) / 60 ))
log "done in $minutes min"
commit=unknown dirty=unknown taken=unknown
if [ -f "$work/pristine/origin" ]; then
  { read -r commit; read -r dirty; read -r taken; } <"$work/pristine/origin"
fi
same="unchanged during the run"
diff -rq "$root/include" "$work/pristine/include" >/dev/null || same="CHANGED during the run: these results are for the snapshot in $work/pristine"
{
  echo "Mutation run finished $(date -u '+%Y-%m-%d %H:%M UTC'); include/ snapshot of $taken: commit $commit"
  echo "with $dirty uncommitted files under include/;"
  echo "include/ $same; g++ $(g++ -dumpfullversion), tests/cuda/{$(IFS=,; echo "${tests[*]}")}.cu;"
  echo "$minutes min on $(nproc) cores$([ "$resume" = 1 ] && echo ' (this invocation: it resumed an interrupted run)')."
  echo
} >"$work/results.md"
set +e
python3 "$helper" summarize "$work" "${ids[@]}" >>"$work/results.md"
rc=$?
cat "$work/results.md"
exit "$rc"
