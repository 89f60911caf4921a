"""The derivative formulas of the upsample, pixel shuffle, adaptive max pool, repeat and the
composite norms against finite differences in float64 (gradcheck), and their double backward
(gradcheck of the first gradient, built with create_graph=True)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.autograd import gradcheck

from .test_gradcheck import t

F = torch.nn.functional

CASES: dict[str, tuple[Callable[..., Any], Callable[[], tuple[Any, ...]]]] = {
    "upsample_nearest1d": (lambda a: F.interpolate(a, size=7), lambda: (t(1, 2, 3),)),
    "upsample_nearest2d": (
        lambda a: F.interpolate(a, scale_factor=(1.5, 2)),
        lambda: (t(1, 2, 3, 2),),
    ),
    "upsample_linear1d": (
        lambda a: F.interpolate(a, size=5, mode="linear", align_corners=True),
        lambda: (t(1, 2, 3),),
    ),
    "upsample_bilinear2d": (
        lambda a: F.interpolate(a, size=(4, 5), mode="bilinear"),
        lambda: (t(1, 2, 3, 2),),
    ),
    "upsample_bilinear2d_down": (
        lambda a: F.interpolate(a, scale_factor=0.6, mode="bilinear"),
        lambda: (t(1, 1, 5, 4),),
    ),
    "pixel_shuffle": (lambda a: F.pixel_shuffle(a, 2), lambda: (t(1, 8, 2, 2),)),
    "im2col": (
        lambda a: F.unfold(a, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
        lambda: (t(2, 2, 4, 5),),
    ),
    "col2im": (lambda a: F.fold(a, (4, 5), 2, padding=1, stride=2), lambda: (t(2, 8, 9),)),
    "pixel_unshuffle": (lambda a: F.pixel_unshuffle(a, 2), lambda: (t(1, 2, 4, 2),)),
    "adaptive_max_pool2d": (lambda a: F.adaptive_max_pool2d(a, (2, 3)), lambda: (t(1, 2, 5, 4),)),
    "adaptive_max_pool1d": (lambda a: F.adaptive_max_pool1d(a, 3), lambda: (t(3, 5),)),
    "repeat": (lambda a: a.repeat(2, 1, 3), lambda: (t(2, 3),)),
    "instance_norm": (
        lambda a, w, b: F.instance_norm(a, weight=w, bias=b),
        lambda: (t(2, 3, 4), t(3, lo=0.5, hi=1.5), t(3)),
    ),
    "rms_norm": (lambda a, w: F.rms_norm(a, [4], w), lambda: (t(3, 4), t(4, lo=0.5, hi=1.5))),
    "adaptive_avg_pool3d": (
        lambda a: F.adaptive_avg_pool3d(a, (2, 3, 2)),
        lambda: (t(1, 2, 3, 4, 3),),
    ),
    "max_unpool2d": (
        lambda a: F.max_unpool2d(a, torch.tensor([[[[0, 3], [9, 14]]]]), 2),
        lambda: (t(1, 1, 2, 2),),
    ),
    "bilinear": (
        lambda a, b, w, c: F.bilinear(a, b, w, c),
        lambda: (t(2, 3), t(2, 2), t(4, 3, 2), t(4)),
    ),
    "embedding_bag_mean": (
        lambda a: F.embedding_bag(torch.tensor([1, 2, 2, 0, 3]), a, torch.tensor([0, 2, 2])),
        lambda: (t(4, 3),),
    ),
    "embedding_bag_max": (
        lambda a: F.embedding_bag(torch.tensor([[1, 2], [0, 3]]), a, mode="max"),
        lambda: (t(4, 3),),
    ),
    "embedding_bag_per_sample_weights": (
        lambda a, p: F.embedding_bag(
            torch.tensor([1, 2, 2, 0]), a, torch.tensor([0, 3]), mode="sum", per_sample_weights=p
        ),
        lambda: (t(4, 3), t(4)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    fn, make = CASES[name]
    assert gradcheck(fn, make())


# instance_norm's second derivative needs native_batch_norm_backward's (batchnorm_double_backward),
# which tensortrace does not have yet; embedding_bag's backward has no derivative in torch either
DOUBLE_BACKWARD = sorted(
    set(CASES)
    - {
        "instance_norm",
        "embedding_bag_mean",
        "embedding_bag_max",
        "embedding_bag_per_sample_weights",
    }
)


@pytest.mark.parametrize("name", DOUBLE_BACKWARD)
def test_double_backward(name: str) -> None:
    """The first gradient, against a fixed output weight, is itself differentiable."""
    fn, make = CASES[name]
    inputs = make()
    weight = t(*fn(*inputs).shape).detach()

    def first_grad(*xs: Any) -> Any:
        with torch.enable_grad():  # gradcheck's numerical pass runs under no_grad
            (g,) = torch.autograd.grad((fn(*xs) * weight).pow(2).sum(), xs[:1], create_graph=True)
        return g

    assert gradcheck(first_grad, inputs)
