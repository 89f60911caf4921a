"""torch.nn.utils: gradient clipping, parameter/vector conversion, the rnn helpers, fusion,
weight_norm / spectral_norm (the hook versions), parametrize and its parametrizations and,
imported on first use, prune.

Mirrors `torch/nn/utils/__init__.py` (the parts tensortrace has: clip_grad, convert_parameters,
rnn's PackedSequence, packing and padding, fusion, weight_norm, spectral_norm, parametrize,
parametrizations, stateless, init's skip_init, prune).
Everything here calls the public tensortrace API, as torch's does.
"""

from tensortrace.nn.utils import parametrizations, parametrize, rnn, stateless
from tensortrace.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from tensortrace.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from tensortrace.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from tensortrace.nn.utils.init import skip_init
from tensortrace.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from tensortrace.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]


def __getattr__(name: str) -> object:
    """torch.nn.utils.prune on first use (Note [Subpackages imported on first use]); torch
    needs an `import torch.nn.utils.prune` first, tensortrace imports it when named."""
    if name == "prune":
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
