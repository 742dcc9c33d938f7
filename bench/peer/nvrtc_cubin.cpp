// nvrtc_cubin: compiles a CUDA source with libnvrtc exactly as keopscore 2.3's
// nvrtc binder does (keopscore/binders/nvrtc/nvrtc_jit.cpp: the options
// "-arch=sm_XY" and "-use_fast_math", nothing else) and writes the cubin, so
// that bench/peer/sass_nvrtc.sh can compare its SASS with nvcc's. No GPU is
// needed: nvrtc is a compiler.
//
// usage: nvrtc_cubin SOURCE.cu sm_90 OUT.cubin
// (bench/peer/peer.cmake runs it at build time for kops_peer's nvrtc rows.)
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: nvrtc_cubin SOURCE.cu sm_XY OUT.cubin\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    // keopscore could not be had at build time (keops_peer_gen.py wrote no
    // source): an empty cubin, which kops_peer reports as missing.
    std::fprintf(stderr, "nvrtc_cubin: no %s: writing an empty %s\n", argv[1], argv[3]);
    return std::ofstream(argv[3], std::ios::binary) ? 0 : 1;
  }
  std::stringstream src;
  src << in.rdbuf();
  const std::string code = src.str();
  const std::string arch = std::string("-arch=") + argv[2];
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, code.c_str(), nullptr, 0, nullptr, nullptr) != NVRTC_SUCCESS) return 1;
  const char* opts[] = {arch.c_str(), "-use_fast_math"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  if (log_size > 1) {
    std::vector<char> log(log_size);
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "%s\n", log.data());
  }
  if (r != NVRTC_SUCCESS) {
    std::fprintf(stderr, "nvrtc_cubin: %s: %s\n", argv[1], nvrtcGetErrorString(r));
    return 1;
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  std::ofstream out(argv[3], std::ios::binary);
  out.write(cubin.data(), std::streamsize(size));
  return out ? 0 : 1;
}
