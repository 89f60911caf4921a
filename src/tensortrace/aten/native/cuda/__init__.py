"""at::native's CUDA side for the emulated device: the `.cu` kernels and CUDA-only natives.

Mirrors `aten/src/ATen/native/cuda/` (Note [The emulated CUDA device] in
c10/cuda/cuda_functions.py). Importing it registers a CUDA kernel for every DispatchStub and the
native functions native_functions.yaml names under `CUDA:`.
"""
