#!/usr/bin/env bash
# Build the API reference (Doxygen, from the comments in include/kops) into
# build/docs/api/html, and fail on any Doxygen warning or on a public name
# without documentation (tools/check_api_docs.py). Installs Doxygen through
# tools/setup.sh when it is missing (Debian/Ubuntu; sudo when not root).
#   usage: bash tools/docs.sh [OUTPUT_DIR]   (default build/docs/api, relative to the
#          repository root; a ctest can pass a folder of its build tree)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "[docs] $*"; }

if ! command -v doxygen >/dev/null 2>&1; then
  log "doxygen is missing: tools/setup.sh installs it (with the project's other packages)"
  bash tools/setup.sh
fi
log "$(doxygen --version | head -n 1 | sed 's/^/doxygen /')"

out="${1:-build/docs/api}"
warnings="$out/warnings.log"
rm -rf "$out/html" "$out/xml" "$warnings"
mkdir -p "$out"

start=$(date +%s.%N)
rc=0
# docs/Doxyfile with the output folder of this run (a later tag wins).
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $warnings"; } |
  doxygen - || rc=$?   # WARN_AS_ERROR = FAIL_ON_WARNINGS: nonzero on any warning
end=$(date +%s.%N)

# Belt and braces: whatever Doxygen's exit status, a non-empty log is a failure.
count=0
if [ -s "$warnings" ]; then
  count=$(grep -c . "$warnings" || true)
  cat "$warnings" >&2
fi
log "doxygen: exit status $rc, $count warning line(s), $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s"
if [ "$rc" -ne 0 ] || [ "$count" -ne 0 ]; then
  log "FAILED: fix the warnings above (see $warnings)" >&2
  exit 1
fi

python3 tools/check_api_docs.py . "$out/xml"

case "$out" in /*) html="$out/html/index.html" ;; *) html="$PWD/$out/html/index.html" ;; esac
log "HTML: $html"
