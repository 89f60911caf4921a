"""The emulated CUDA device's c10 layer: the caching allocator, its config and statistics.

Mirrors `c10/cuda/`. The device is emulated in host memory (see Note [The emulated device's
memory] in emulated_device.py); the allocator's rules are CUDACachingAllocator.cpp's.
"""
