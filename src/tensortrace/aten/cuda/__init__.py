"""ATen's CUDA layer for the emulated device: empty_cuda, the CUDA generator.

Mirrors `aten/src/ATen/cuda/` (Note [The emulated CUDA device] in c10/cuda/cuda_functions.py).
"""
