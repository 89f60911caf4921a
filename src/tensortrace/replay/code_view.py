"""The equivalent-code view: the user's code as the sequence of binding calls it really made.

Seed 000 explains `r = torch.rand(3,4)[0] + torch.rand(3 , 4)` by rewriting it as
`_t1 = torch.rand(3, 4)`, `_t2 = _t1.__getitem__(0)`, `del _t1`, ...: one line per top-level
Python binding call (a `THPVariable_*` frame with no frame around it) and one `del` per handle
death (THPVariable_dealloc). This module derives those lines from a trace, never by hand:

- a top-level frame's line is `<new handles> = <call>`, the call rebuilt from the binding's name
  (`THPVariable_rand` is `torch.rand`, a method binding is `self.name`, `THPVariable_getitem` is
  `__getitem__`) and the arguments the frame and its PythonArgParser::parse child recorded;
- a handle that survives the trace takes its user variable name (the `names` instant); the
  others are `_t1`, `_t2`, ... in order of birth;
- operators: the trace records the same `THPVariable_add` frame for `a + b` and `a.add(b)` (as in
  PyTorch, where `__add__` is bound to THPVariable_add), so when the user's statement (the
  `statement` instant) uses `+` and never names `add`, the line says `__add__` like the seed;
- handle deaths after the `names` instant are the end of the script's namespace, not code.

No PyTorch counterpart: the profiler has no notion of the Python statements around its ops.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tensortrace.replay.state import Compiled, Frame
from tensortrace.trace import Trace, schema
from tensortrace.trace.events import INSTANT
from tensortrace.trace.schema import HANDLE_DEL, HANDLE_NEW, NAMES, PYTHON_CALL, STATEMENT

HERE = "  # <--- here"

# Python operators and the bindings they call (python_variable_methods.cpp binds each dunder to
# the named method's THPVariable_<op>): (binding name, dunder)
_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.MatMult: "matmul",
    ast.Pow: "pow",
    ast.Mod: "remainder",
    ast.FloorDiv: "floor_divide",
    ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor",
}
_DUNDER = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "div": "truediv",
    "matmul": "matmul",
    "pow": "pow",
    "remainder": "mod",
    "floor_divide": "floordiv",
    "bitwise_and": "and",
    "bitwise_or": "or",
    "bitwise_xor": "xor",
}
_COMPARE: dict[type[ast.cmpop], str] = {
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
}
_UNARY: dict[type[ast.unaryop], str] = {ast.USub: "neg", ast.Invert: "bitwise_not"}
_UNARY_DUNDER = {"neg": "__neg__", "bitwise_not": "__invert__"}
_INDEXING = {"getitem": "__getitem__", "setitem": "__setitem__"}


@dataclass(frozen=True)
class CodeLine:
    """One line of the equivalent code and the events it covers (`start`..`end` inclusive)."""

    text: str
    start: int
    end: int
    kind: str  # "call" | "del"


@dataclass
class HandleNames:
    """The name each handle goes by: user name, `_tN` for top-level temporaries, else `_hN`."""

    names: dict[int, str]  # display handle id -> name

    def __call__(self, handle: int) -> str:
        return self.names.get(handle, f"_h{handle}")


def user_names(trace: Trace) -> tuple[dict[int, str], int]:
    """Raw handle id -> user variable name, and the index of the last `names` instant (or -1)."""
    names: dict[int, str] = {}
    at = -1
    for index, event in enumerate(trace.events):
        if event.ph == INSTANT and event.kind == NAMES:
            at = index
            for raw, found in event.args.get("names", {}).items():
                if found:
                    names[int(raw)] = found[0]
    return names, at


class _Operators:
    """What a user statement writes as an operator: the dunder a binding frame really is."""

    def __init__(self, source: str | None) -> None:
        self.called: set[str] = set()
        self.dunders: dict[str, str] = {}
        if not source:
            return
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                self.called.add(
                    func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                )
            elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
                op = _BINOPS[type(node.op)]
                reflected = isinstance(node.left, ast.Constant)
                self.dunders.setdefault(op, f"__{'r' if reflected else ''}{_DUNDER[op]}__")
            elif isinstance(node, ast.AugAssign) and type(node.op) in _BINOPS:
                op = _BINOPS[type(node.op)]
                self.dunders.setdefault(op + "_", f"__i{_DUNDER[op]}__")
            elif isinstance(node, ast.Compare):
                for cmp in node.ops:
                    if type(cmp) in _COMPARE:
                        name = _COMPARE[type(cmp)]
                        self.dunders.setdefault(name, f"__{name}__")
            elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
                name = _UNARY[type(node.op)]
                self.dunders.setdefault(name, _UNARY_DUNDER[name])

    def python_name(self, op: str) -> str:
        if op in self.dunders and op not in self.called:
            return self.dunders[op]
        return op


# a loop runs the same statement many times: each source is parsed once (read-only after init)
_operators = lru_cache(maxsize=1024)(_Operators)


class _Namer:
    """Names handles as the code view meets them, and finds a handle by its TensorImpl."""

    def __init__(self, compiled: Compiled, survivors: dict[int, str]) -> None:
        self.compiled = compiled
        self.survivors = survivors  # raw -> user name
        self.names: dict[int, str] = {}  # display -> name
        self.impl_handle: dict[str, int] = {}  # raw impl name -> display handle (latest)
        self.temp = 0

    def name(self, handle: int, top_level: bool) -> str:
        if handle not in self.names:
            raw = self.compiled.handle_raw.get(handle)
            if raw in self.survivors:
                self.names[handle] = self.survivors[raw]
            elif top_level:
                self.temp += 1
                self.names[handle] = f"_t{self.temp}"
            else:
                self.names[handle] = f"_h{handle}"
        return self.names[handle]

    def render(self, value: Any) -> str:
        """An argument summary as code: handles by name, tensors by their handle's name."""
        if schema.is_summary(value):
            kind, impl = value[schema.SUMMARY], value.get("impl")
            if kind == schema.HANDLE:
                handle = self.compiled.ids.known_handle(value["handle"])
                if handle is not None:
                    return self.names.get(handle) or self.name(handle, False)
            elif kind == schema.TENSOR and impl is not None:
                handle = self.impl_handle.get(impl)
                if handle is not None:
                    return self.names.get(handle) or self.name(handle, False)
                return f"<{self.compiled.ids.display(impl)}>"
            return schema.render_summary(value, self.compiled.ids.display)
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "[" + ", ".join(self.render(v) for v in value) + "]"
        return repr(value)


def derive_code(trace: Trace, compiled: Compiled) -> tuple[list[CodeLine], HandleNames]:
    """The equivalent-code lines of a trace and the names its handles go by."""
    survivors, names_at = user_names(trace)
    namer = _Namer(compiled, survivors)
    events = trace.events
    lines: list[CodeLine] = []
    statement: str | None = None
    index = 0
    while index < len(events):
        event = events[index]
        if event.ph == INSTANT:
            if event.kind == STATEMENT:
                statement = event.args.get("source")
            elif event.kind == HANDLE_NEW:
                # a handle born outside any frame (an untraced binding)
                handle = compiled.ids.known_handle(event.args["handle"])
                if handle is not None:
                    namer.impl_handle[event.args.get("impl", "")] = handle
                    lines.append(
                        CodeLine(f"{namer.name(handle, True)} = ...", index, index, "call")
                    )
            elif event.kind == HANDLE_DEL and (names_at < 0 or index < names_at):
                text = _del_line([event], namer, compiled)
                if text:
                    lines.append(CodeLine(text, index, index, "del"))
            index += 1
            continue
        frame_index = compiled.frame_of_begin.get(index)
        if frame_index is None:  # a stray END
            index += 1
            continue
        frame = compiled.frames[frame_index]
        end = frame.end if frame.end >= 0 else len(events) - 1
        inner = [e for e in events[index : end + 1] if e.ph == INSTANT]
        if frame.name == "THPVariable_dealloc":
            deaths = [e for e in inner if e.kind == HANDLE_DEL]
            if names_at < 0 or index < names_at:
                text = _del_line(deaths, namer, compiled)
                if text:
                    lines.append(CodeLine(text, index, end, "del"))
        else:
            text = _call_line(trace, frame, inner, namer, _operators(statement))
            lines.append(CodeLine(text, index, end, "call"))
        index = end + 1
    return lines, HandleNames(dict(namer.names))


def _del_line(deaths: list[Any], namer: _Namer, compiled: Compiled) -> str:
    names = []
    for death in deaths:
        handle = compiled.ids.known_handle(death.args["handle"])
        if handle is not None:
            names.append(namer.names.get(handle) or namer.name(handle, True))
    return f"del {', '.join(names)}" if names else ""


def _call_line(
    trace: Trace, frame: Frame, inner: list[Any], namer: _Namer, operators: _Operators
) -> str:
    compiled = namer.compiled
    # handles born in this frame and still alive at its end are what the line assigns
    born: list[int] = []
    for event in inner:
        if event.kind == HANDLE_NEW:
            handle = compiled.ids.known_handle(event.args["handle"])
            if handle is not None:
                born.append(handle)
                namer.impl_handle[event.args.get("impl", "")] = handle
        elif event.kind == HANDLE_DEL:
            handle = compiled.ids.known_handle(event.args["handle"])
            if handle in born:
                born.remove(handle)
    call = _render_call(trace, frame, namer, operators)
    error = frame.outcome.get("error")
    if error:
        call += f"  # raises {error.split(':')[0]}"
    if not born:
        return call
    return ", ".join(namer.name(h, True) for h in born) + " = " + call


def _child(compiled: Compiled, frame: Frame, prefix: str) -> Frame | None:
    for position in range(frame.index + 1, len(compiled.frames)):
        candidate = compiled.frames[position]
        if candidate.begin > frame.end >= 0:
            return None
        if candidate.parent == frame.index and candidate.name.startswith(prefix):
            return candidate
    return None


def _render_call(trace: Trace, frame: Frame, namer: _Namer, operators: _Operators) -> str:
    compiled = namer.compiled
    site = trace.sites[frame.site] if 0 <= frame.site < len(trace.sites) else None
    if not frame.name.startswith("THPVariable_") or site is None:
        return f"{frame.name}(...)"
    op = frame.name[len("THPVariable_") :]
    is_method = "python_variable_methods" in site.source or op in _INDEXING
    called = _called_as(trace, frame)
    python_name = (
        called
        or frame.args.get("python_name")
        or _INDEXING.get(op)
        or (operators.python_name(op) if is_method else op)
    )
    args = dict(frame.args)
    args.pop("python_name", None)
    self_value = args.pop("self", None)
    positional: list[Any]
    if "*args" in args:
        # the binding recorded its Python arguments itself (a method's self comes first)
        positional = _as_list(args.pop("*args"))
        if is_method and positional and self_value is None:
            self_value = positional.pop(0)
        keywords = args
    elif (parse := _child(compiled, frame, "torch::PythonArgParser::parse")) is not None:
        positional = _as_list(parse.args.get("args", []))
        keywords = args
    else:
        positional, keywords = list(args.values()), {}
    if is_method and self_value is None:
        dispatch = _child(compiled, frame, "dispatch_")
        if dispatch is not None:
            self_value = dispatch.args.get("self")
    parts = [namer.render(v) for v in positional]
    parts += [f"{k}={namer.render(v)}" for k, v in keywords.items()]
    if is_method:
        receiver = namer.render(self_value) if self_value is not None else "<tensor>"
        return f"{receiver}.{python_name}({', '.join(parts)})"
    return f"torch.{python_name}({', '.join(parts)})"


def _as_list(value: Any) -> list[Any]:
    """The recorded positional arguments (a list; one value if a file says otherwise)."""
    return list(value) if isinstance(value, list) else [value]


def _called_as(trace: Trace, frame: Frame) -> str | None:
    """The Python name the binding was reached by (`python_call` instant: `Tensor.__add__`)."""
    follow = frame.begin + 1
    if follow < len(trace.events):
        event = trace.events[follow]
        if event.kind == PYTHON_CALL:
            return str(event.args["python_name"]).split(".", 1)[-1]
    return None


def render_code(lines: list[CodeLine], step: int | None = None) -> str:
    """The code as text; `step` marks the line in progress (or next to run) with `<--- here`."""
    here = current_line(lines, step) if step is not None else None
    return "\n".join(line.text + (HERE if i == here else "") for i, line in enumerate(lines))


def current_line(lines: list[CodeLine], step: int) -> int | None:
    """The line running at `step`, or the next one when `step` falls between lines."""
    for i, line in enumerate(lines):
        if step <= line.end:
            return i
    return None
