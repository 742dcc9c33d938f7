#!/usr/bin/env python3
"""Write the CUDA source that keopscore 2.3 generates for the bench/sass formulas.

usage: keops_gen.py OUTDIR

For each case of CASES and each dtype (float, double) this writes
OUTDIR/keops_<case>_<dtype>.cu (the kernel source, exactly as keopscore hands it
to nvrtc) and OUTDIR/keops_<case>_<dtype>.json (what the parser needs: kernel
name, launch block size, dynamic shared memory, bytes of j-data per pair).

The choices are pykeops 2.3's defaults for a Genred call on GPU arrays
(backend 'auto' -> GPU_1D, data on the device):
  - map-reduce class GpuReduc1D, or GpuReduc1D_chunks when keopscore's own rule
    picks the chunked mode (enable_chunks=True, multVar_highdim off: the rule of
    keopscore.get_keops_dll, restated in pick_class below);
  - use_fast_math=1, dtype_acc = dtype, sum_scheme block_sum for sum-type
    reductions (Sum, Max_SumShiftExp) and direct_sum otherwise;
  - LogSumExp is reduced by Max_SumShiftExp_Reduction (pykeops takes the log
    of the (max, sum) pair on the host afterwards);
  - the gradient is the formula pykeops' torch autograd builds:
    Grad_WithSavedForward(<forward>, X, Var(nargs,dimout,0), Var(nargs+1,dimout,0)).

No GPU is needed: keopscore's code generation (MapReduce.get_code and the
GpuReduc1D* get_code methods) is plain Python. What needs a GPU is the nvrtc
binder (keopscore.binders.nvrtc.Gpu_link_compile, whose import loads libcuda
and whose __init__ refuses to run without a device); it is replaced here by a
stand-in with an empty __init__ before keopscore's GPU classes are imported.
keopscore also leaves its CUDA block size unset when it finds no CUDA driver;
it is set to keopscore's default, 192, which is what it uses on a GPU.
"""
import json
import os
import sys
import types

CUDA_BLOCK_SIZE = 192  # keopscore.config.cuda.CUDAConfig.set_cuda_block_size default
SHARED_MEM_PER_BLOCK = 49152  # what keops_nvrtc.cpp reads from the device (48 KiB on sm_90)

# case -> (reduction string, aliases). Variable indices and order are those of
# the kops sources in this folder (gauss.cu, gauss_grad.cu, argkmin.cu, logsumexp.cu, attention.cu).
GAUSS = "Exp(-G*SqDist(X,Y))*B"


def gauss_aliases(d):
    return [f"X=Var(0,{d},0)", f"Y=Var(1,{d},1)", "B=Var(2,1,1)", "G=Var(3,1,2)"]


CASES = {
    "gauss3": (f"Sum_Reduction({GAUSS},0)", gauss_aliases(3)),
    "gauss_grad3": (
        f"Grad_WithSavedForward(Sum_Reduction({GAUSS},0),X,Var(4,1,0),Var(5,1,0))",
        gauss_aliases(3),
    ),
    "argkmin8": ("ArgKMin_Reduction(SqDist(X,Y),8,0)", ["X=Var(0,3,0)", "Y=Var(1,3,1)"]),
    "argkmin8_d128": ("ArgKMin_Reduction(SqDist(X,Y),8,0)", ["X=Var(0,128,0)", "Y=Var(1,128,1)"]),
    "logsumexp3": (
        "Max_SumShiftExp_Reduction(-G*SqDist(X,Y),0)",
        ["X=Var(0,3,0)", "Y=Var(1,3,1)", "G=Var(2,1,2)"],
    ),
    "gauss_grad784": (
        f"Grad_WithSavedForward(Sum_Reduction({GAUSS},0),X,Var(4,1,0),Var(5,1,0))",
        gauss_aliases(784),
    ),
    "gauss64": (f"Sum_Reduction({GAUSS},0)", gauss_aliases(64)),
    "gauss256": (f"Sum_Reduction({GAUSS},0)", gauss_aliases(256)),
    "gauss1024": (f"Sum_Reduction({GAUSS},0)", gauss_aliases(1024)),
    # pykeops' SumSoftMaxWeight: the (max, sum, sum v) reduction, divided on the host.
    "attention64": (
        "Max_SumShiftExpWeight_Reduction(G*(X|Y),0,Concat(IntCst(1),V))",
        ["X=Var(0,64,0)", "Y=Var(1,64,1)", "V=Var(2,64,1)", "G=Var(3,1,2)"],
    ),
}
NARGS = {"gauss_grad3": 6, "gauss_grad784": 6}  # the gradient adds the input gradient and the saved forward result


def install_stub_binder():
    """Replace keopscore's nvrtc binder by a stand-in (see the module docstring)."""
    name = "keopscore.binders.nvrtc.Gpu_link_compile"
    stub = types.ModuleType(name)

    class Gpu_link_compile:  # noqa: N801 (keopscore's name)
        source_code_extension = "cu"

        def __init__(self):
            pass

    stub.Gpu_link_compile = Gpu_link_compile
    sys.modules[name] = stub


def main(outdir):
    install_stub_binder()
    import keopscore

    if keopscore.cuda_block_size is None:
        keopscore.cuda_block_size = CUDA_BLOCK_SIZE
    # Imported after the stub and the block size are in place.
    from keopscore.config.chunks import (
        dimchunk,
        get_enable_chunk,
        set_enable_chunk,
        set_enable_finalchunk,
        set_mult_var_highdim,
        use_final_chunks,
    )
    from keopscore.formulas.GetReduction import GetReduction
    from keopscore.mapreduce.Chunk_Mode_Constants import Chunk_Mode_Constants
    from keopscore.mapreduce.gpu.GpuReduc1D import GpuReduc1D
    from keopscore.mapreduce.gpu.GpuReduc1D_chunks import GpuReduc1D_chunks
    from keopscore.mapreduce.gpu.GpuReduc1D_finalchunks import GpuReduc1D_finalchunks

    # pykeops 2.3 defaults: enable_chunks=True, enable_final_chunks=-1 (automatic), multVar_highdim off.
    set_enable_chunk(1)
    set_enable_finalchunk(-1)
    set_mult_var_highdim(0)

    def pick_class(red_string, aliases):
        red = GetReduction(red_string, aliases)
        if use_final_chunks(red):
            return GpuReduc1D_finalchunks, 2
        if get_enable_chunk() and len(red.formula.chunked_formulas(dimchunk)) == 1:
            if not Chunk_Mode_Constants(red).chunk_postchunk_mix:
                return GpuReduc1D_chunks, 1
        return GpuReduc1D, 0

    os.makedirs(outdir, exist_ok=True)
    for case, (red_string, aliases) in CASES.items():
        nargs = NARGS.get(case, len(aliases))
        sum_type = red_string.startswith(("Sum_Reduction", "Max_SumShiftExp", "Grad_WithSavedForward(Sum"))
        for dtype in ("float", "double"):
            cls, chunk_mode = pick_class(red_string, aliases)
            obj = cls(
                red_string,
                aliases,
                nargs,
                dtype,
                dtype,  # dtype_acc 'auto' = dtype
                "block_sum" if sum_type else "direct_sum",
                1,  # tagHostDevice: data on the device
                1,  # tagCpuGpu: GPU
                0,  # tag1D2D: GPU_1D
                0,  # use_half
                1,  # use_fast_math (pykeops default)
                0,  # device_id
            )
            obj.get_code()
            size = 4 if dtype == "float" else 8
            dimy = obj.dimy
            # keops_nvrtc.cpp launch_kernel: block = min(192, 1024, 49152 / (dimy * sizeof)),
            # dynamic shared memory = block * dimy * sizeof(T).
            block = min(CUDA_BLOCK_SIZE, 1024, SHARED_MEM_PER_BLOCK // max(1, dimy * size))
            stem = os.path.join(outdir, f"keops_{case}_{dtype}")
            with open(stem + ".cu", "w") as f:
                f.write(obj.code)
            meta = {
                "impl": "keopscore",
                "case": case,
                "dtype": dtype,
                "precision": "fast",
                "formula": red_string,
                "aliases": aliases,
                "map_reduce": cls.__name__,
                "chunk_mode": chunk_mode,
                "block": block,
                "dynamic_shared_bytes": block * dimy * size,
                "pair_bytes": dimy * size,
                "dimy": dimy,
                "nargs": nargs,
                "dimout": obj.red_formula.dim,  # values per output row (LogSumExp: the (max, sum) pair)
                # GpuReduc1D_chunks runs the dimension in chunks of 64 (keopscore's
                # dimchunk): a loop over all chunks but the last, when nvcc keeps it a loop.
                "chunks": -(-max(int(a.split(",")[1]) for a in aliases) // 64) if chunk_mode else 0,
            }
            with open(stem + ".json", "w") as f:
                json.dump(meta, f, indent=1)
            print(f"keops_gen: {stem}.cu  ({cls.__name__}, dimy {dimy}, block {block})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: keops_gen.py OUTDIR")
    main(sys.argv[1])
