"""The generated kernels that are imported on first lookup, and the modules registering them.

No torchgen counterpart: in PyTorch the kernels are compiled in. Here the Register<Key>
structured wrappers, the VariableType and the ADInplaceOrView kernels are each written to a
`<module>_kernels.py` that the loader does not import; `<module>.py` registers each of them as
`kernel_on_first_lookup(KERNELS, name)` (Note [Generated kernels imported on first lookup] in
aten/codegen.py).
"""

from __future__ import annotations

SUFFIX = "_kernels"  # a generated module named so is imported on first lookup, not by the loader

REGISTRATIONS_DOC = (
    "\nThis module registers them; they are in the _kernels module beside it, imported when "
    "a\ndispatch table first needs one (Note [Generated kernels imported on first lookup] in "
    "aten/codegen.py)."
)


# ... and the Backward Nodes (autograd/generated/functions.py, ~630 classes): imported by the
# Autograd kernels that record a graph (variable_type_kernels.py) and by the few manual
# functions that make a Node (rebase_history, forward_ad_type), on their first use
FIRST_USE = {("tensortrace.autograd.generated", "functions")}


def kernels_doc(module: str) -> str:
    """What a kernels module's docstring adds: who registers it, and when it is imported."""
    return (
        f"\nRegistered by {module}.py beside it; imported when a dispatch table first\nneeds "
        "one of them (Note [Generated kernels imported on first lookup] in aten/codegen.py)."
    )


def imported_by_loader(package: str, module: str) -> bool:
    """Whether the loader imports this generated module (the package __init__'s MODULES)."""
    return not module.endswith(SUFFIX) and (package, module) not in FIRST_USE


def lazy_registration(
    ident: str, key: str, name: str, symbol: str | None = None, with_keyset: bool = False
) -> str:
    """The line registering the kernel `name` of the module's KERNELS for operator `ident`."""
    args = [f'"{name}"'] + ([f'"{symbol}"'] if symbol is not None else [])
    args += ["with_keyset=True"] if with_keyset else []
    return (
        f"ops.{ident}.register(DispatchKey.{key}, "
        f"kernel_on_first_lookup(KERNELS, {', '.join(args)}))"
    )


def autograd_registrations(module: str, imports: list[str], lines: list[str]) -> str:
    """The code of an autograd kernels module's registrations: `imports` are the ones beside
    the operators and the kernel classes, as `<module under tensortrace> import <names>`."""
    head = [
        "from tensortrace.aten.codegen import kernel_on_first_lookup",
        "from tensortrace.aten.dispatcher import KernelFunction",
        "from tensortrace.aten.generated import operators as ops",
        *(f"from tensortrace.{line}" for line in imports),
        "from tensortrace.c10.dispatch_key import DispatchKey",
        "",
        f'KERNELS = "tensortrace.autograd.generated.{module}{SUFFIX}"',
    ]
    return "\n".join(head + lines) + "\n"
