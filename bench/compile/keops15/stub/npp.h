// Stand-in for <npp.h>, which KeOps 1.5 includes (core/utils/Infinity.h) only
// for these two limits and which this machine's CUDA install lacks. Values as
// NVIDIA NPP defines them: the largest finite float and double.
#pragma once
#define NPP_MAXABS_32F (3.402823466e+38f)
#define NPP_MAXABS_64F (1.7976931348623158e+308)
