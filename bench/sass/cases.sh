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
