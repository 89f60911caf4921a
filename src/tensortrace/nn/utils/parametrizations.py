"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations.

Mirrors `torch/nn/utils/parametrizations.py` (orthogonal lives in _orthogonal.py). weight_norm
registers _WeightNorm unsafely (its right_inverse splits the weight into original0 = g,
original1 = v) plus a load_state_dict pre-hook that renames the hook version's `weight_g` /
`weight_v` keys; spectral_norm registers _SpectralNorm, whose power-method vectors are the
buffers `_u` / `_v` (15 warm-up iterations at registration, n_power_iterations per access in
training mode).
"""

from __future__ import annotations

from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.module import Module
from tensortrace.nn.utils import parametrize
from tensortrace.nn.utils._orthogonal import orthogonal

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Any, weight_v: Any) -> Any:
        return torch._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Any) -> tuple[Any, Any]:
        weight_g = torch.norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    _weight_norm = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm, unsafe=True)

    def _weight_norm_compat_hook(
        state_dict: Any,
        prefix: str,
        local_metadata: Any,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        # a state_dict of the hook version (nn.utils.weight_norm) loads too
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    _u: Any  # the power method's vectors, buffers (for a weight of more than one dim)
    _v: Any

    def __init__(
        self, weight: Any, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # a vector is just normalized: no power method, no buffers
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the top singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Any) -> Any:
        if weight.ndim <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.ndim}"
            )
        if self.dim != 0:
            # permute dim to front
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Any, n_power_iterations: int) -> None:
        if weight_mat.ndim <= 1:
            raise AssertionError(
                f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}"
            )
        with torch.no_grad():  # torch decorates it with torch.autograd.no_grad()
            for _ in range(n_power_iterations):
                # in place into the buffers (out=), as in torch
                self._u = F.normalize(
                    torch.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u
                )
                self._v = F.normalize(
                    torch.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v
                )

    def forward(self, weight: Any) -> Any:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the buffers change in place at the next access, the backward needs these
        u = self._u.clone(memory_format=torch.contiguous_format)
        v = self._v.clone(memory_format=torch.contiguous_format)
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Any) -> Any:
        # any value whose spectral norm is 1 is its own preimage; torch keeps the value as is
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    weight = getattr(module, name, None)
    if not isinstance(weight, torch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        # (tensortrace has no ConvTranspose3d yet)
        if isinstance(module, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d)):
            dim = 1
        else:
            dim = 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
