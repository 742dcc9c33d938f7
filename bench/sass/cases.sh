# The kernel set of bench/sass (sourced by run.sh and compare.sh).
# case | source | extra defines | element types (default: float double; half and
# bfloat16 are kops::half / kops::bfloat16 storage, evaluated in float, kops only)
cases=(
  "gauss3|gauss.cu|-DSASS_D=3|float double half bfloat16"
  "gauss_grad3|gauss_grad.cu|"
  "argkmin8|argkmin.cu|"
  "argkmin8_d128|argkmin.cu|-DSASS_D=128"
  "logsumexp3|logsumexp.cu|"
  "gauss64|gauss.cu|-DSASS_D=64|float double half"
  "gauss256|gauss.cu|-DSASS_D=256"
  "gauss1024|gauss.cu|-DSASS_D=1024"
  "attention64|attention.cu|-DSASS_D=64"
  "gauss_grad784|gauss_grad.cu|-DSASS_D=784"
)
# Tuned variants of a case (backends/cuda/kernel_traits.hpp: tuning<R, B>, R
# output rows per thread, B threads per block; the default is R = 1, B = 192):
# compiled and reported by run.sh beside the case, left out of compare.sh
# (whose older revision may not have them). Name: CASE_rRbB. Indented by four
# spaces: bench/peer/peer.cmake and tools/gpu_check.sh read the cases above
# as the lines that start with two spaces and a quote (the peer harness times
# the variants as rows of their case: kops_peer --variants).
variant_cases=(
    "gauss3_r2b192|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=2 -DSASS_TUNE_B=192"
    "gauss3_r4b192|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=4 -DSASS_TUNE_B=192"
    "gauss3_r1b128|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=1 -DSASS_TUNE_B=128"
    "gauss3_r1b256|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=1 -DSASS_TUNE_B=256"
    "gauss3_r2b128|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=2 -DSASS_TUNE_B=128"
    "gauss3_r2b256|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=2 -DSASS_TUNE_B=256"
    "gauss3_r4b128|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=4 -DSASS_TUNE_B=128"
    "gauss3_r4b256|gauss.cu|-DSASS_D=3 -DSASS_TUNE_R=4 -DSASS_TUNE_B=256"
)
