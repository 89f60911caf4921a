"""at::native's CUDA side for the emulated device: the `.cu` kernels and CUDA-only natives.

Mirrors `aten/src/ATen/native/cuda/` (Note [The emulated CUDA device] in
c10/cuda/cuda_functions.py): a CUDA kernel for every DispatchStub (made when the stub first runs
on CUDA) and the native functions native_functions.yaml names under `CUDA:`.
"""
