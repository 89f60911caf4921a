"""Linear.cpp: linear, and einsum with the sumproduct_pair it contracts with.

Mirrors `aten/src/ATen/native/Linear.cpp`; the composites tensordot, inner, outer / ger and kron
are in linear_algebra.py.

- linear: input @ weight.T + bias, the op behind nn.Linear. For a 2D input with a bias it is one
  fused addmm(bias, input, weight.t()); for a contiguous input with a bias the batch dims are
  folded into rows first (_flatten_nd_linear: view + addmm + view); otherwise it is matmul, plus
  an in-place add of the bias. So F.linear records aten::linear > aten::t + aten::addmm, as
  torch.profiler shows.
- einsum has no kernel of its own: it aligns every operand to (output dims,
  contraction dims) with diagonal / unsqueeze / permute, then contracts left to right, each pair
  through sumproduct_pair's permute + reshape + bmm + view + permute, so the trace of
  `torch.einsum('ij,jk->ik', a, b)` shows the bmm that does the work, as torch.profiler does.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_transformations import dim_list_to_bitset
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/Linear.cpp"

NUM_OF_LETTERS = 26
TOTAL_LABELS = 52
ELLIPSIS = TOTAL_LABELS


def _prod(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def sumproduct_pair(left: Tensor, right: Tensor, sum_dims_: Sequence[int], keepdim: bool) -> Tensor:
    """(left * right).sum(sum_dims) by permutation and batch matrix multiplication."""
    TORCH_CHECK(left.dim() == right.dim(), "number of dimensions must match")
    if not sum_dims_:
        return at.mul(left, right)
    dim = left.dim()
    sum_dims = dim_list_to_bitset(sum_dims_, dim)
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left.size(i) != 1, right.size(i) != 1
        if sum_dims[i]:
            if sl and sr:
                TORCH_CHECK(left.size(i) == right.size(i), "non-broadcast dimensions must match")
                sum_size *= left.size(i)
            elif sl:
                left = left.sum([i], True)
            elif sr:
                right = right.sum([i], True)
        elif sl and sr:
            TORCH_CHECK(left.size(i) == right.size(i), "non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.size(i)
        elif sl:
            lo.append(i)
            lo_size *= left.size(i)
        else:
            ro.append(i)
            ro_size *= right.size(i)
    sums = list(sum_dims_)
    out_size = (
        [left.size(d) for d in lro]
        + [left.size(d) for d in lo]
        + [1] * len(sums)
        + [right.size(d) for d in ro]
    )
    lpermutation = lro + lo + sums + ro
    rpermutation = lro + sums + ro + lo
    opermutation = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + sums + ro):
        opermutation[d] = i
    left = left.permute(lpermutation).reshape([lro_size, lo_size, sum_size])
    right = right.permute(rpermutation).reshape([lro_size, sum_size, ro_size])
    result = at.bmm(left, right)
    result = result.view(out_size).permute(opermutation)
    if not keepdim:
        sizes = list(result.sizes())
        for i in range(dim - 1, -1, -1):
            if sum_dims[i]:
                del sizes[i]
        result = result.view(sizes)
    return result


def _label_to_subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + NUM_OF_LETTERS


def _subscript_to_label(s: int) -> str:
    return chr(s + ord("A")) if s < NUM_OF_LETTERS else chr(s - NUM_OF_LETTERS + ord("a"))


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    ell_in_input = False
    curr_op = 0
    i = 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            TORCH_CHECK(
                not ell_in_input,
                "einsum(): found '.' for operand ",
                curr_op,
                " for which an ellipsis was already found",
            )
            TORCH_CHECK(
                i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == ".",
                "einsum(): found '.' for operand ",
                curr_op,
                " that is not part of any ellipsis",
            )
            i += 2
            op_labels[curr_op].append(ELLIPSIS)
            ell_in_input = True
        elif label == ",":
            curr_op += 1
            TORCH_CHECK(
                curr_op < num_ops,
                "einsum(): fewer operands were provided than specified in the equation",
            )
            ell_in_input = False
        else:
            TORCH_CHECK(
                label.isascii() and label.isalpha(),
                "einsum(): invalid subscript given at index ",
                i,
                " in the equation string, subscripts must be in [a-zA-Z]",
            )
            op_labels[curr_op].append(_label_to_subscript(label))
        i += 1
    TORCH_CHECK(
        curr_op == num_ops - 1,
        "einsum(): more operands were provided than specified in the equation",
    )
    return op_labels


@native_function(SOURCE)
def einsum(equation: str, tensors: Sequence[Tensor], path: Sequence[int] | None = None) -> Tensor:
    operands = list(tensors)
    TORCH_CHECK(len(operands) > 0, "einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        TORCH_CHECK(
            len(path) == path_size,
            "einsum(): expected contraction path given in path parameter to have size ",
            path_size,
            " but got ",
            len(path),
        )
    arrow_pos = equation.find("->")
    lhs = equation if arrow_pos == -1 else equation[:arrow_pos]
    op_labels = _parse_operands(lhs, num_ops)

    label_count = [0] * TOTAL_LABELS
    ell_num_dim = 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        ndims = operand.dim()
        nlabels = len(labels)
        has_ellipsis = False
        for label in labels:
            if label == ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[label] += 1
        TORCH_CHECK(
            nlabels <= ndims if has_ellipsis else nlabels == ndims,
            "einsum(): the number of subscripts in the equation (",
            nlabels,
            ") is more than the number of dimensions ("
            if has_ellipsis
            else ") does not match the number of dimensions (",
            ndims,
            ") for operand ",
            i,
            "" if has_ellipsis else " and no ellipsis was given",
        )

    # align every operand to (output dims, contraction dims)
    label_perm_index = [-1] * TOTAL_LABELS
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow_pos == -1:  # implicit output: the ellipsis, then the labels seen once, sorted
        perm_index = ell_num_dim
        ell_in_output = True
        for label in range(TOTAL_LABELS):
            if label_count[label] == 1:
                label_perm_index[label] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow_pos + 2 :]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                pass
            elif ch == ".":
                TORCH_CHECK(
                    not ell_in_output,
                    "einsum(): found '.' for output but an ellipsis (...) was already found",
                )
                TORCH_CHECK(
                    i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == ".",
                    "einsum(): found '.' for output that is not part of any ellipsis (...)",
                )
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                TORCH_CHECK(
                    ch.isascii() and ch.isalpha(),
                    "einsum(): invalid subscript given at index ",
                    len(lhs) + 2 + i,
                    " in the equation string, subscripts must be in [a-zA-Z]",
                )
                index = _label_to_subscript(ch)
                TORCH_CHECK(
                    label_count[index] > 0 and label_perm_index[index] == -1,
                    "einsum(): output subscript ",
                    ch,
                    " appears more than once in the output"
                    if label_perm_index[index] > -1
                    else " does not appear in the equation for any input operand",
                )
                label_perm_index[index] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(TOTAL_LABELS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1

    label_size = [1] * TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[i]:
            if s == ELLIPSIS:
                ndim = operand.dim() - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op.size(dim) != 1:
                        TORCH_CHECK(
                            ell_sizes[j] == 1 or ell_sizes[j] == op.size(dim),
                            "einsum(): dimension ",
                            dim,
                            " covered by ellipsis in operand ",
                            i,
                            "has size ",
                            op.size(dim),
                            " which does not broadcast with previously seen ellipsis with size ",
                            ell_sizes[j],
                            " for the respective dimension",
                        )
                        ell_sizes[j] = op.size(dim)
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                if op.size(dim) != 1:
                    TORCH_CHECK(
                        label_size[s] == 1 or label_size[s] == op.size(dim),
                        "einsum(): subscript ",
                        _subscript_to_label(s),
                        " has size ",
                        op.size(dim),
                        " for operand ",
                        i,
                        " which does not broadcast with previously seen size ",
                        label_size[s],
                    )
                    label_size[s] = op.size(dim)
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal
                prev_dim = permutation[label_perm_index[s]]
                TORCH_CHECK(
                    op.size(dim) == op.size(prev_dim),
                    "einsum(): subscript ",
                    _subscript_to_label(s),
                    " is repeated for operand ",
                    i,
                    " but the sizes don't match, ",
                    op.size(dim),
                    " != ",
                    op.size(prev_dim),
                )
                op = op.diagonal(0, prev_dim, dim).movedim(-1, prev_dim)
        for k, val in enumerate(permutation):
            if val == -1:
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(permutation))

    contract_path = list(path) if path is not None else []
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = contract_path.pop(0), contract_path.pop(0)
            if j < i:
                i, j = j, i
            TORCH_CHECK(
                i != j and i >= 0 and j < len(ops),
                "einsum(): invalid contraction (",
                i,
                ", ",
                j,
                ") cannot contract an operand with itself"
                if i == j
                else ") operand index is out of bounds",
            )
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        sum_dims: list[int] = []
        a_dims_to_sum: list[int] = []
        b_dims_to_sum: list[int] = []
        for d in range(out_num_dim, perm_index):
            if a.size(d) != 1 and b.size(d) != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.size(d) != 1:
                    a_dims_to_sum.append(d)
                    dim_counts[d] = 0
                elif b.size(d) != 1:
                    b_dims_to_sum.append(d)
                    dim_counts[d] = 0
        if a_dims_to_sum:
            a = a.sum(a_dims_to_sum, True)
        if b_dims_to_sum:
            b = b.sum(b_dims_to_sum, True)
        pair = sumproduct_pair(a, b, sum_dims, True)
        if path is not None:
            ops.append(pair)
        else:
            ops.insert(0, pair)

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            sizes = list(ops[0].sizes())[:out_num_dim]
            return ops[0].view(sizes)
        return ops[0].sum(list(range(out_num_dim, perm_index)))
    return ops[0]


# ---- linear (nn.Linear) ----------------------------------------------------------------------
def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """Fold the batch dims into rows (a view, the input being contiguous), addmm, unfold."""
    sizes = input.sizes()
    flattened_dim = 1
    for s in sizes[:-1]:
        flattened_dim *= s
    # reshape of a contiguous tensor is a view: torch.profiler records just aten::view
    result = at.addmm(bias, input.view([flattened_dim, sizes[-1]]), weight.t())
    return result.view([*sizes[:-1], result.size(1)])


@native_function(SOURCE)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    input_dim = input.dim()
    weight_dim = weight.dim()
    TORCH_CHECK(
        input_dim != 0 and weight_dim != 0,
        "both arguments to linear need to be at least 1D, but they are ",
        input_dim,
        "D and ",
        weight_dim,
        "D",
    )
    has_bias = bias is not None and bias.defined()
    if input_dim == 2 and has_bias:
        # fused op is marginally faster
        return at.addmm(bias, input, weight.t())
    if (
        has_bias
        and bias is not None
        and input.is_contiguous()
        and (input_dim == 3 or bias.dim() == 1)
    ):
        return _flatten_nd_linear(input, weight, bias)
    output = at.matmul(input, weight.t())
    if has_bias:
        output.add_(bias)
    return output
