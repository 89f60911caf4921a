"""torch.nn.utils.spectral_norm (the hook version): a weight divided by its largest singular
value, estimated by power iteration.

Mirrors `torch/nn/utils/spectral_norm.py`. SpectralNorm.apply keeps the parameter as
`name_orig`, the power iteration's vectors as buffers `name_u` / `name_v` (drawn from the
normal, normalized), and registers itself as a forward pre-hook (one or more iterations per
forward in training mode, none in eval) plus the state_dict hooks that record version 1 and
convert a version-0 checkpoint (which saved `name` instead of `name_v`).
"""

from __future__ import annotations

from typing import Any, TypeVar

import tensortrace as torch
from tensortrace.nn import functional as F

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "spectral_norm",
    "remove_spectral_norm",
]


class SpectralNorm:
    _version: int = 1  # 1: u and v are buffers (0 saved the normalized weight instead of v)
    name: str
    dim: int
    n_power_iterations: int
    eps: float

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Any) -> Any:
        weight_mat = weight
        if self.dim != 0:
            # permute dim to front
            weight_mat = weight_mat.permute(
                self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim]
            )
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module: Any, do_power_iteration: bool) -> Any:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with torch.no_grad():
                for _ in range(self.n_power_iterations):
                    # in place into the buffers, so DataParallel replicas would share them
                    v = F.normalize(torch.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(torch.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                if self.n_power_iterations > 0:
                    # clones: the backward must not see the next iteration's in-place update
                    u = u.clone(memory_format=torch.contiguous_format)
                    v = v.clone(memory_format=torch.contiguous_format)
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Any) -> None:
        with torch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, torch.nn.Parameter(weight.detach()))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat: Any, u: Any, target_sigma: Any) -> Any:
        # v with u^T W v = target_sigma, from the pseudo-inverse of W^T W (torch's
        # pinverse, through linalg.svd here: V diag(1/s) U^T, s below rcond * max(s) dropped)
        gram = weight_mat.t().mm(weight_mat)
        big_u, s, vh = torch.linalg.svd(gram, full_matrices=False)
        cutoff = s.max() * 1e-15
        s_inv = torch.where(s > cutoff, s.reciprocal(), torch.zeros_like(s))
        pinv = (vh.t() * s_inv.unsqueeze(0)).mm(big_u.t())
        v = pinv.mm(weight_mat.t()).mm(u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / torch.dot(u, torch.mv(weight_mat, v)))

    @staticmethod
    def apply(
        module: Any, name: str, n_power_iterations: int, dim: int, eps: float
    ) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with torch.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # randomly initialize `u` and `v`
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute (not a buffer or parameter) until the first forward recomputes it
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 checkpoint (`name` and `name_u` saved, no `name_v`)."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: Any,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if (
                version is None
                and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict
            ):
                # a state_dict saved without metadata, but already in the new format
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with torch.no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


class SpectralNormStateDictHook:
    """Records the SpectralNorm version in the state_dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Any, state_dict: Any, prefix: str, local_metadata: Any) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


T_module = TypeVar("T_module")


def spectral_norm(
    module: T_module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> T_module:
    if dim is None:
        # a transposed conv's weight is (in, out, *k): its output channels are dim 1
        # (tensortrace has no ConvTranspose3d yet: the 1-D and 2-D ones are the ones to check)
        if isinstance(module, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d)):
            dim = 1
        else:
            dim = 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    m: Any = module
    for k, hook in m._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del m._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in m._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del m._state_dict_hooks[k]
            break
    for k, hook in m._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del m._load_state_dict_pre_hooks[k]
            break
    return module
