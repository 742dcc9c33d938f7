#!/usr/bin/env bash
# Whether a change moved the device code: every kernel of bench/sass (cases.sh,
# kops only: each case, element type and precision) compiled with the include/
# of two git revisions, and the cuobjdump -sass text of the two compared
# (addresses stripped). No GPU needed.
#   usage: bash bench/sass/compare.sh REV_A REV_B
#   env:   SASS_EXTRA (extra nvcc flags for every kernel: -DSASS_TC compares
#          the tensor-core kernels where they apply, kops_sass.hpp)
# cuobjdump: from PATH, else from build/sass/venv (made by bench/sass/run.sh).
# Prints a DIFF line per kernel whose SASS differs, then the counts; exits 1
# when any differs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../.."
[ $# -eq 2 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if ! command -v cuobjdump >/dev/null; then
  bin=$(find build/sass/venv -type f -name cuobjdump -perm -u+x 2>/dev/null | head -n1)
  [ -n "$bin" ] || { echo "compare.sh: no cuobjdump (run bench/sass/run.sh once, or put it on PATH)" >&2; exit 2; }
  export PATH="$(dirname "$bin"):$PATH"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in a b; do mkdir -p "$tmp/$r"; done
git archive "$1" include | tar -x -C "$tmp/a"
git archive "$2" include | tar -x -C "$tmp/b"
. "$here/cases.sh"
same=0 differ=0
for c in "${cases[@]}"; do
  IFS='|' read -r name src defs types <<<"$c"
  for t in ${types:-float double}; do
    case $t in half | bfloat16) ct=kops::$t ;; *) ct=$t ;; esac
    for p in fast accurate; do
      for r in a b; do
        # shellcheck disable=SC2086
        "$nvcc" -cubin -arch=sm_90 -O3 -std=c++20 --expt-relaxed-constexpr -I "$tmp/$r/include" \
          -DSASS_T="$ct" -DSASS_PREC="$p" $defs ${SASS_EXTRA:-} "$here/$src" -o "$tmp/$r.cubin"
        # (Mangled names dropped: a template parameter added to a type renames
        # every kernel without changing an instruction.)
        cuobjdump -sass "$tmp/$r.cubin" | grep -v '^[[:space:]]*$' | sed 's@/\*[0-9a-f]*\*/@@g' |
          grep -v 'Function :' | sed 's/_Z[A-Za-z0-9_]*//g' >"$tmp/$r.sass"
      done
      if cmp -s "$tmp/a.sass" "$tmp/b.sass"; then same=$((same + 1))
      else differ=$((differ + 1)); echo "DIFF ${name}_${t}_$p"; fi
    done
  done
done
echo "$same kernels' SASS identical, $differ different ($1 vs $2)"
[ "$differ" -eq 0 ]
