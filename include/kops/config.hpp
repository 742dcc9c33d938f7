// Configuration macros of kops: the only header that defines KOPS_ macros.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KOPS_HD __host__ __device__
#define KOPS_DEVICE_COMPILER 1
#else
#define KOPS_HD
#define KOPS_DEVICE_COMPILER 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KOPS_INLINE inline __attribute__((always_inline))
#else
#define KOPS_INLINE inline
#endif

#define KOPS_VERSION_MAJOR 0
#define KOPS_VERSION_MINOR 1
#define KOPS_VERSION_PATCH 0
