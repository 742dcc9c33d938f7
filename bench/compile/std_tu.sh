# std_tu FILE COMPILER-AND-FLAGS... SOURCE (sourced by run.sh and breakdown.sh):
# writes to FILE one #include line for every public libstdc++ header SOURCE
# reaches, found with nvcc's host preprocessor (-E -Xcompiler -H). A TU of
# those lines costs what the standard library costs that TU (the headers
# nvcc force-includes, cuda_runtime.h's, are in the empty TU as well).
std_tu() {
  local file=$1
  shift
  "$@" -E -Xcompiler -H -o /dev/null 2>&1 >/dev/null | sed -n 's|^\.\.* .*/c++/[0-9]*/\([a-z_]*\)$|#include <\1>|p' |
    sort -u >"$file"
  [ -s "$file" ] || { echo "std_tu: no standard header found for $file" >&2; return 1; }
}
