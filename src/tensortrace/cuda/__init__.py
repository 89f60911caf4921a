"""torch.cuda for the emulated CUDA device: memory statistics and snapshots live in `memory`.

Mirrors `torch/cuda/__init__.py`. (A placeholder: the emulated device's runtime API is built on
its own branch and re-exports the functions of `tensortrace.cuda.memory`.)
"""
