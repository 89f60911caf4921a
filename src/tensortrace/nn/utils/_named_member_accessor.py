"""Get, set and swap a module's tensors and submodules by dotted name ("0.weight").

Mirrors `torch/nn/utils/_named_member_accessor.py`, the machinery under
torch.func.functional_call: swap_tensor puts a tensor in the place of a parameter, buffer or
plain attribute and returns what was there (_MISSING when nothing was), so the original can
be put back afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import tensortrace as torch

# a placeholder for "no such attribute", distinct from None (a parameter may be None)
_MISSING: Any = object()


def set_tensor(module: Any, name: str, tensor: Any) -> None:
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(tensor, torch.Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if name in module._parameters:
        module._parameters[name] = tensor
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module: Any, name: str, tensor: Any, allow_missing: bool = False) -> Any:
    """Put `tensor` (or, for _MISSING, nothing) in the place of module.name; return the old."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, torch.Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    # the dicts are written directly: a plain Tensor may replace a Parameter
    if name in module._parameters:
        orig_tensor = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig_tensor = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig_tensor = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            orig_tensor = _MISSING
        if (
            orig_tensor is not _MISSING
            and not isinstance(orig_tensor, torch.Tensor)
            and orig_tensor is not None
        ):
            raise TypeError(f"attribute `{name}`: {orig_tensor} is not an instance of torch.Tensor")
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig_tensor


def swap_submodule(module: Any, name: str, submodule: Any) -> Any:
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(submodule, torch.nn.Module):
        raise TypeError(f"{submodule} is not an instance of torch.nn.Module")
    if "." in name:
        raise KeyError('submodule name can\'t contain "."')
    if name == "":
        raise KeyError('submodule name can\'t be empty string ""')
    if name not in module._modules:
        raise KeyError(f"submodule {name} does not exist")
    orig_submodule = module._modules[name]
    if not isinstance(orig_submodule, torch.nn.Module):
        raise TypeError(f"{name} attribute is not an instance of torch.nn.Module")
    module._modules[name] = submodule
    return orig_submodule


class NamedMemberAccessor:
    """A module's submodules and tensors by dotted name, the submodule lookups memoized."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.memo: dict[str, Any] = {}

    def get_submodule(self, name: str) -> Any:
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        module = self.get_submodule(prefix) if dot else self.module
        try:
            submodule = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(submodule, torch.nn.Module):
            raise TypeError(
                f"submodule `{name}`: {submodule} is not an instance of torch.nn.Module"
            )
        self.memo[name] = submodule
        return submodule

    def swap_submodule(self, path: str, value: Any) -> Any:
        prefix, _, attr = path.rpartition(".")
        return swap_submodule(self.get_submodule(prefix), attr, value)

    def get_tensor(self, name: str) -> Any:
        prefix, _, attr = name.rpartition(".")
        submodule = self.get_submodule(prefix)
        try:
            tensor = getattr(submodule, attr)
        except AttributeError as ex:
            raise AttributeError(f"{submodule._get_name()} has no attribute `{name}`") from ex
        if not isinstance(tensor, torch.Tensor) and tensor is not None:
            raise TypeError(f"{tensor} is not an instance of torch.Tensor")
        return tensor

    def set_tensor(self, name: str, value: Any) -> None:
        prefix, _, attr = name.rpartition(".")
        set_tensor(self.get_submodule(prefix), attr, value)

    def del_tensor(self, name: str) -> None:
        prefix, _, attr = name.rpartition(".")
        submodule = self.get_submodule(prefix)
        try:
            delattr(submodule, attr)
        except AttributeError as ex:
            raise AttributeError(f"{submodule._get_name()} has no attribute `{name}`") from ex

    def swap_tensor(self, name: str, value: Any, allow_missing: bool = False) -> Any:
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def get_tensors(self, names: Iterable[str]) -> list[Any]:
        return [self.get_tensor(name) for name in names]

    def set_tensors(self, names: Iterable[str], values: Iterable[Any]) -> None:
        names, values = list(names), list(values)
        if len(names) != len(values):
            raise AssertionError(
                "names and values must have the same length, "
                f"got {len(names)} names and {len(values)} values"
            )
        for name, value in zip(names, values, strict=True):
            self.set_tensor(name, value)

    def set_tensors_dict(self, named_tensors: dict[str, Any]) -> None:
        for name, value in named_tensors.items():
            self.set_tensor(name, value)

    def del_tensors(self, names: Iterable[str]) -> None:
        for name in names:
            self.del_tensor(name)

    def swap_tensors(
        self, names: Iterable[str], values: Iterable[Any], allow_missing: bool = False
    ) -> list[Any]:
        names, values = list(names), list(values)
        if len(names) != len(values):
            raise AssertionError(
                "names and values must have the same length, "
                f"got {len(names)} names and {len(values)} values"
            )
        return [
            self.swap_tensor(name, value, allow_missing=allow_missing)
            for name, value in zip(names, values, strict=True)
        ]

    def swap_tensors_dict(
        self, named_tensors: dict[str, Any], allow_missing: bool = False
    ) -> tuple[dict[str, Any], list[str]]:
        orig_named_tensors = {}
        missing_keys = []
        try:
            for name, tensor in named_tensors.items():
                orig_tensor = self.swap_tensor(name, tensor, allow_missing=True)
                if orig_tensor is _MISSING:
                    missing_keys.append(name)
                orig_named_tensors[name] = orig_tensor
        except Exception:
            # swap back whatever was swapped
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise
        if missing_keys and not allow_missing:
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        return orig_named_tensors, missing_keys

    def check_keys(self, keys: Iterable[str]) -> tuple[list[str], list[str]]:
        keys = set(keys)
        valid_keys = {name for name, _ in self.named_tensors(remove_duplicate=False)}
        missing_keys = valid_keys - keys
        unexpected_keys = keys - valid_keys
        return sorted(missing_keys), sorted(unexpected_keys)

    def named_parameters(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)

    def named_buffers(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def named_tensors(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def named_modules(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self.module.named_modules(remove_duplicate=remove_duplicate)
