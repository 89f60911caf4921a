"""Distribution: the base class of torch.distributions.

Mirrors `torch/distributions/distribution.py`: batch_shape / event_shape, argument validation
(on by default, as `__debug__` is), `_validate_sample`, `_extended_shape`, `sample` from
`rsample`, and the repr that lists the parameters (a one-element one by value, else its size).
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import tensortrace as torch
from tensortrace.distributions import constraints
from tensortrace.distributions.utils import EMPTY_SIZE, lazy_property

__all__ = ["Distribution"]


def _no_grad() -> Any:
    no_grad = getattr(torch, "no_grad", None)
    return no_grad() if no_grad is not None else contextlib.nullcontext()


def _is_all_true(valid: Any) -> bool:
    """torch._is_all_true: every element of a bool tensor is true."""
    return bool(valid.all().item())


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: Any = EMPTY_SIZE,
        event_shape: Any = EMPTY_SIZE,
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # constraints that cannot be checked
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param), lazy_property
                ):
                    continue  # lazily-constructed arguments
                value = getattr(self, param)
                valid = constraint.check(value)
                if not _is_all_true(valid):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {repr(self)} "
                        f"to satisfy the constraint {repr(constraint)}, "
                        f"but found invalid values:\n{value}"
                    )
        super().__init__()

    @property
    def batch_shape(self) -> Any:
        return self._batch_shape

    @property
    def event_shape(self) -> Any:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> Any:
        raise NotImplementedError

    @property
    def mode(self) -> Any:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Any:
        raise NotImplementedError

    @property
    def stddev(self) -> Any:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = EMPTY_SIZE) -> Any:
        with _no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = EMPTY_SIZE) -> Any:
        raise NotImplementedError

    def log_prob(self, value: Any) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        raise NotImplementedError

    def perplexity(self) -> Any:
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = EMPTY_SIZE) -> Any:
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        return torch.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample "
                "validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not _is_all_true(valid):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({repr(support)}) "
                f"of the distribution {repr(self)}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type[Distribution], _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} "
                "that defines a custom __init__ method must also define "
                "a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_parameters(
        self, cls: type[Distribution], names: tuple[str, ...], batch_shape: Any, _instance: Any
    ) -> Any:
        """expand() of a distribution whose named parameters have its batch shape: each one
        expanded, as torch's Normal.expand and Uniform.expand write out."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = torch.Size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        shown = {
            p: self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()
            for p in param_names
        }
        args_string = ", ".join([f"{p}: {shown[p]}" for p in param_names])
        return self.__class__.__name__ + "(" + args_string + ")"
