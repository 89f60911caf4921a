"""nn.InstanceNorm1d and nn.InstanceNorm2d (torch/nn/modules/instancenorm.py).

_InstanceNorm is torch's _NormBase (batchnorm.py) with affine and track_running_stats off by
default; forward checks the rank and the channel count (an error with affine, a warning
without, since then num_features is unused), adds the batch dim an unbatched input lacks, and
calls F.instance_norm with the input's statistics while training or when no running statistics
are tracked. (torch's _load_from_state_dict, which drops the running-stat keys of pre-0.4
checkpoints, is not modelled: tensortrace's load_state_dict passes no version metadata.)
"""

from __future__ import annotations

import warnings
from typing import Any

import tensortrace as torch
from tensortrace.nn import functional as F
from tensortrace.nn.modules.batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device=device,
            dtype=dtype,
            bias=bias,
        )

    def _check_input_dim(self, input: torch.Tensor) -> None:
        raise NotImplementedError

    def _get_no_batch_dim(self) -> int:
        raise NotImplementedError

    def _handle_no_batch_input(self, input: torch.Tensor) -> torch.Tensor:
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input: torch.Tensor) -> torch.Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            else:
                warnings.warn(
                    f"input's size at dim={feature_dim} does not match num_features. "
                    "You can silence this warning by not passing in num_features, "
                    "which is not used because affine=False",
                    stacklevel=2,
                )
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    def _get_no_batch_dim(self) -> int:
        return 2

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    def _get_no_batch_dim(self) -> int:
        return 3

    def _check_input_dim(self, input: torch.Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")
