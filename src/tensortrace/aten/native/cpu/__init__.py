"""The CPU kernels (`aten/src/ATen/native/cpu/`): the loops that touch data."""
