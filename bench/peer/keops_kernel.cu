// KeOps's kernel for one (formula, element type) of the peer harness: the CUDA
// source keopscore 2.3 generated (bench/peer/keops_peer_gen.py writes
// PEER_KEOPS_HEADER at build time: the launch facts, then the source, its
// kernel GpuConv1DOnDevice renamed so that the sixteen kernels can share one
// executable), registered for peer_main.cu. On a GPU this file is compiled
// with pykeops's -use_fast_math and nothing of kops, so the kernel's code is
// what nvrtc makes of the same source with the same options.
//
// Defines (from the generated wrapper): PEER_KEOPS_HEADER (the header's name),
// PEER_CASE_NAME (cases.sh's case), PEER_KEOPS_T (float or double).
#include "peer.hpp"

#include PEER_KEOPS_HEADER

namespace {

peer::keops_kernel<PEER_KEOPS_T> facts() {
  peer::keops_kernel<PEER_KEOPS_T> k;
#ifdef KOPS_PEER_KEOPS_MISSING
  k.missing = KOPS_PEER_KEOPS_MISSING;
#else
  k.fn = &KOPS_PEER_KEOPS_KERNEL;
  k.dimy = KOPS_PEER_KEOPS_DIMY;
  k.chunk_mode = KOPS_PEER_KEOPS_CHUNK_MODE;
  k.nargs = KOPS_PEER_KEOPS_NARGS;
  k.dimout = KOPS_PEER_KEOPS_DIMOUT;
  k.block_generated = KOPS_PEER_KEOPS_BLOCK;
  k.map_reduce = KOPS_PEER_KEOPS_MAP_REDUCE;
#endif
  return k;
}

const peer::add_keops registered{PEER_CASE_NAME, facts()};

} // namespace
