#!/usr/bin/env bash
# A compiler launcher (tools/cache.sh puts it first when KOPS_COMPILE_TIMES is
# set): timed_compile.sh LOG COMMAND... runs COMMAND (ccache and the compiler)
# and appends "<start> <end> <folder> <object>" to LOG, the times in seconds
# since the epoch, the object the argument after -o. Exit status: COMMAND's.
log="$1"
shift
start="$(date +%s.%N)"
"$@"
rc=$?
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
echo "$start $(date +%s.%N) $PWD ${out:-?}" >>"$log"
exit "$rc"
