"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp of a Python function.

Mirrors `torch/autograd/functional.py`, built on autograd.grad: the inputs are detached (or, with
create_graph, viewed) copies that require grad, the function runs under enable_grad, and each
product is one or two calls of autograd.grad. jvp and hvp use the double-backward trick (the
gradient of a vjp with respect to its grad_outputs, which are zeros requiring grad) in place of
forward-mode AD. jacobian's (and hessian's) vectorize=True path computes every vjp in one
backward with batched grad_outputs (autograd.grad's is_grads_batched, which is torch.func.vmap);
the forward-mode strategy needs forward AD, which tensortrace does not have, so it raises
NotImplementedError (after torch's own argument checks). torch's argument checks and error
messages are kept verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensortrace as torch
from tensortrace.autograd.api import grad as _grad
from tensortrace.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from tensortrace.csrc.python_variable import TensorBase

Tensor = torch.Tensor

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_NO_FORWARD_AD = (
    'torch.autograd.functional.{}: strategy="forward-mode" needs forward-mode AD '
    "(torch.autograd.forward_ad), which tensortrace does not implement. Please use "
    'strategy="reverse-mode".'
)


def _as_tuple_nocheck(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    """(whether inp was a tuple, inp as a tuple), checking that every element is a Tensor."""
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, TensorBase):
            if is_inp_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the given {arg_name} has type {type(el)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res: Any, to_unpack: bool | tuple[bool, bool]) -> Any:
    """Unpack the tuples that wrapped a single input or output (a pair for nested results)."""
    if isinstance(to_unpack, tuple):
        if len(to_unpack) != 2:
            raise AssertionError("Expected to_unpack tuple to have exactly 2 elements")
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(
    inputs: Sequence[Tensor], create_graph: bool, need_graph: bool
) -> tuple[Tensor, ...]:
    """Inputs that require grad: a view keeps the graph to the user's tensor (create_graph), a
    detached copy cuts it. (torch clones a sparse input: tensortrace has no sparse layout.)"""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs: Sequence[Any], create_graph: bool) -> tuple[Any, ...]:
    if isinstance(inputs[0], TensorBase):
        return tuple(inp.detach() for inp in inputs) if not create_graph else tuple(inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: Sequence[Tensor], other: Sequence[Tensor], is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other, strict=True)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _check_requires_grad(inputs: Sequence[Any], input_type: str, strict: bool) -> None:
    if not strict:
        return
    if input_type not in ["outputs", "grad_inputs", "jacobian", "hessian"]:
        raise RuntimeError("Invalid input_type to _check_requires_grad")
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if inp.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."
            )
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode."
        )


def _autograd_grad(
    outputs: tuple[Any, ...],
    inputs: tuple[Tensor, ...],
    grad_outputs: tuple[Any, ...] | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
    is_grads_batched: bool = False,
) -> tuple[Any, ...]:
    """autograd.grad of the outputs that require grad (None for every input if none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    if len(outputs) != len(grad_outputs):
        raise AssertionError(
            "Expected outputs and grad_outputs to have the same length, but got "
            f"{len(outputs)} and {len(grad_outputs)}"
        )
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs, strict=True) if out is not None]
    pairs = [(out, g) for out, g in pairs if out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return tuple(
        _grad(
            [out for out, _ in pairs],
            list(inputs),
            [g for _, g in pairs],
            retain_graph=retain_graph,
            create_graph=create_graph,
            allow_unused=True,
            is_grads_batched=is_grads_batched,
        )
    )


_STAGE_ERRORS = {
    "back": "The output of the user-provided function is independent of input {}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This "
    "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(
    grads: Sequence[Any], refs: Sequence[Tensor], strict: bool, create_graph: bool, stage: str
) -> tuple[Tensor, ...]:
    """Zeros where a gradient is None (an error in strict mode, worded by stage)."""
    if stage not in _STAGE_ERRORS:
        raise RuntimeError(f"Invalid stage argument '{stage}' to _fill_in_zeros")
    res: tuple[Tensor, ...] = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_STAGE_ERRORS[stage].format(i))
            grads_i = _zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        res += (grads_i,)
    return res


def _zeros_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    return torch.zeros_like(t, requires_grad=requires_grad)


def _prepare(
    fn_name: str, inputs: Any, v: Any, create_graph: bool, v_like_inputs: bool, func: Callable
) -> tuple[bool, tuple[Tensor, ...], Any, bool, tuple[Tensor, ...]]:
    """The shared opening of vjp, jvp, vhp and hvp, under enable_grad: the inputs made to require
    grad, v checked against the inputs (v_like_inputs) or the outputs, and func run."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)

    def v_checked(other: tuple[Tensor, ...], is_other_tuple: bool, what: str) -> Any:
        if v is not None:
            _, v_t = _as_tuple(v, "v", fn_name)
            v_t = _grad_preprocess(v_t, create_graph=create_graph, need_graph=False)
            _validate_v(v_t, other, is_other_tuple)
            return v_t
        if len(other) != 1 or other[0].nelement() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the {what} a single Tensor with a single "
                "element."
            )
        return None

    if v_like_inputs:
        v_t = v_checked(inputs, is_inputs_tuple, "input to the user-provided function is")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    if not v_like_inputs:
        v_t = v_checked(outputs, is_outputs_tuple, "user-provided function returns")
    return is_inputs_tuple, inputs, v_t, is_outputs_tuple, outputs


def _check_single_output(fn_name: str, is_outputs_tuple: bool, outputs: tuple[Any, ...]) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], TensorBase):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


def _finish(
    outputs: tuple[Tensor, ...],
    is_outputs_tuple: bool,
    res: tuple[Tensor, ...],
    is_res_tuple: bool,
    create_graph: bool,
) -> tuple[Any, Any]:
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_res_tuple)


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple[Any, Any]:
    """(func(inputs), the vector-Jacobian product v^T J)."""
    with enable_grad():
        # torch checks v after running func: the outputs' shapes are what v must match
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _prepare(
            "vjp", inputs, v, create_graph, False, func
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return _finish(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple[Any, Any]:
    """(func(inputs), the Jacobian-vector product J v), by the double-backward trick."""
    with enable_grad():
        _, inputs, v, is_outputs_tuple, outputs = _prepare(
            "jvp", inputs, v, create_graph, True, func
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return _finish(outputs, is_outputs_tuple, res, is_outputs_tuple, create_graph)


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of func at inputs: one vjp per output element (reverse mode)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.'
            )
        _as_tuple(inputs, "inputs", "jacobian")
        if vectorize:
            raise NotImplementedError(_NO_FORWARD_AD.format("jacobian"))
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or "
                    "`vectorize=False`."
                )
            from tensortrace.autograd.functional_vectorize import _vectorized_jacobian

            return _vectorized_jacobian(
                outputs, inputs, is_outputs_tuple, is_inputs_tuple, create_graph
            )
        jac: tuple[tuple[Tensor, ...], ...] = ()
        for i, out in enumerate(outputs):
            jac_i: tuple[list[Tensor], ...] = tuple([] for _ in range(len(inputs)))
            for j in range(out.nelement()):
                vj = _autograd_grad(
                    (out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph
                )
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(
                    zip(jac_i, vj, inputs, strict=True)
                ):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                f"The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {el_idx}. This is not allowed in strict mode."
                            )
                        jac_i_el.append(_zeros_like(inp_el))
            jac += (
                tuple(
                    torch.stack(jac_i_el, dim=0).view(out.size() + inputs[el_idx].size())
                    for el_idx, jac_i_el in enumerate(jac_i)
                ),
            )
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar func: the jacobian of its jacobian (built with create_graph)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, TensorBase):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple[Any, Any]:
    """(func(inputs), the vector-Hessian product v^T H) of a scalar func."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _prepare(
            "vhp", inputs, v, create_graph, True, func
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        _check_single_output("vhp", is_outputs_tuple, outputs)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return _finish(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple[Any, Any]:
    """(func(inputs), the Hessian-vector product H v) of a scalar func, by the double-backward
    trick on the gradient of the jacobian."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs = _prepare(
            "hvp", inputs, v, create_graph, True, func
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        _check_single_output("hvp", is_outputs_tuple, outputs)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return _finish(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)
