// Built with kops::native only (tests/consumer/CMakeLists.txt): the target must
// give this TU the build host's instruction set, which a baseline x86-64 build
// (SSE2, the CPU backend's 4 float lanes) lacks.
#if KOPS_CONSUMER_EXPECT_AVX && !defined(__AVX__)
#error "kops::native did not add the build host's instruction set: the host has AVX (-march=native defines __AVX__), this TU has not"
#endif

int kops_consumer_native_isa() { return 0; }
