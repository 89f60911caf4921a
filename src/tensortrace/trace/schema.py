"""The trace's vocabulary, in one place: event kinds, their arguments, and the runtime's facts.

Mirrors what torch.profiler's event types declare (`torch/csrc/profiler/collection.h`:
`EventType`, `ExtraFields<...>` per kind of event): here every instant kind is a constant, the
facts it carries are a TypedDict, and `INSTANT_ARGS` maps one to the other, so the recorder
writes, the loader checks (format.py) and the replay reads the same declarations.

Two kinds of value the runtime writes for the replay to read back, never as text to scrape:
- an object reference, `TensorImpl#7`: the type and the process-wide id of an
  intrusive_ptr_target (`object_ref` writes it, `split_ref` reads it: an identifier, not prose);
- a structured summary of an argument or result that names objects (a tensor, a Python handle,
  a TensorImpl, a StorageImpl, an AutogradMeta): a dict whose `"$"` says which, rendered as
  text by `render_summary` with the renaming a reader wants (the replay renumbers objects per
  trace and names handles after the user's variables).
"""

# No `from __future__ import annotations` here: TypedDict reads NotRequired from the evaluated
# annotations, and the loader (format.py) checks files against them.
import re
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

# ---- phases (Chrome's phase letters) and layers -------------------------------------------------
BEGIN = "B"
END = "E"
INSTANT = "i"
PHASES = (BEGIN, END, INSTANT)

# The layers a frame can belong to, from the outside in (see DESIGN.md, "The trace").
LAYERS: tuple[str, ...] = (
    "python",
    "dispatch",
    "autograd",
    "native",
    "kernel",
    "allocator",
    "refcount",
)

# ---- instant kinds ------------------------------------------------------------------------------
STATEMENT = "statement"  # run_source: a top-level statement starts
NAMES = "names"  # which user variables hold which handles
PYTHON_CALL = "python_call"  # the Python name a binding was reached by (Tensor.__add__)
HANDLE_NEW = "handle_new"  # THPVariable_Wrap: a Python tensor handle is born
HANDLE_DEL = "handle_del"  # THPVariable_dealloc: it dies
MAKE_INTRUSIVE = "make_intrusive"  # a refcounted object is made (refcount 1)
INCREF = "incref"
DECREF = "decref"
DELETE = "delete"  # its refcount reached zero and its resources were released
VIEW_BASE = "view_base"  # a view takes a reference to its base (Note [A view holds its base])
TENSOR_META = "tensor_meta"  # a TensorImpl's sizes / strides / offset changed
TENSOR_STORAGE = "tensor_storage"  # a TensorImpl now uses another StorageImpl
STORAGE_DATA = "storage_data"  # a StorageImpl's memory was replaced (resize)
GRAD_FN = "grad_fn"  # an autograd Node was added to the graph
ALLOC = "alloc"  # `[memory]` instants, as torch.profiler's
FREE = "free"
SEGMENT_ALLOC = "segment_alloc"  # the CUDA caching allocator: cudaMalloc
SEGMENT_FREE = "segment_free"  # cudaFree
SPLIT = "split"  # a cached block split in two
FREE_COMPLETED = "free_completed"  # a block's free completed (its streams are done)
OOM = "oom"  # an allocation failed

# ---- object references --------------------------------------------------------------------------
ObjectRef = str  # "TensorImpl#7"
TENSOR_IMPL = "TensorImpl"
STORAGE_IMPL = "StorageImpl"


def object_ref(type_name: str, object_id: int) -> ObjectRef:
    return f"{type_name}#{object_id}"


def split_ref(ref: object) -> tuple[str, int] | None:
    """("TensorImpl", 7) for "TensorImpl#7"; None for anything that is not a reference."""
    if type(ref) is not str:
        return None
    type_name, sep, number = ref.partition("#")
    if not sep or not type_name or not (number.isascii() and number.isdigit()):
        return None
    return type_name, int(number)


_REF_IN_TEXT = re.compile(r"\b[A-Z][A-Za-z]*Impl#\d+")


def rename_refs(text: str, ref: Callable[[ObjectRef], str]) -> str:
    """`text` with every reference embedded in it renamed: for labels that name an object
    inside other words (an autograd node's `AccumulateGrad(TensorImpl#7)`)."""
    return _REF_IN_TEXT.sub(lambda m: ref(m.group(0)), text)


# ---- the facts of each instant kind ---------------------------------------------------------
class StatementArgs(TypedDict):
    index: int
    lineno: int
    end_lineno: int
    source: str


class NamesArgs(TypedDict):
    names: dict[str, list[str]]  # str(handle id) -> the user variables bound to it


class PythonCallArgs(TypedDict):
    python_name: str


class HandleNewArgs(TypedDict):
    handle: int
    impl: ObjectRef
    storage: NotRequired[ObjectRef]
    sizes: NotRequired[list[int]]
    strides: NotRequired[list[int]]
    offset: NotRequired[int]
    dtype: NotRequired[str]


class HandleDelArgs(TypedDict):
    handle: int
    impl: ObjectRef


class MakeIntrusiveArgs(TypedDict):
    object: ObjectRef
    refcount: int
    type: NotRequired[str]
    # a TensorImpl's facts (TensorImpl._trace_info)
    storage: NotRequired[ObjectRef | None]
    base: NotRequired[ObjectRef | None]
    dtype: NotRequired[str]
    itemsize: NotRequired[int]
    sizes: NotRequired[list[int]]
    strides: NotRequired[list[int]]
    offset: NotRequired[int]
    is_view: NotRequired[bool]
    # a StorageImpl's (StorageImpl._trace_info)
    nbytes: NotRequired[int]
    addr: NotRequired[int]
    device: NotRequired[str]


class RefcountArgs(TypedDict):
    object: ObjectRef
    refcount: int


class DeleteArgs(TypedDict):
    object: ObjectRef


class ViewBaseArgs(TypedDict):
    object: ObjectRef
    base: ObjectRef | None


class TensorMetaArgs(TypedDict):
    object: ObjectRef
    sizes: list[int]
    strides: list[int]
    offset: int


class TensorStorageArgs(TypedDict):
    object: ObjectRef
    storage: ObjectRef | None


class StorageDataArgs(TypedDict):
    object: ObjectRef
    nbytes: NotRequired[int]
    addr: NotRequired[int]
    device: NotRequired[str]


class MemoryArgs(TypedDict):
    """alloc / free: the `[memory]` instant. A caching allocator adds the NotRequired facts."""

    addr: int
    bytes: int
    total_allocated: int
    device: str
    total_reserved: NotRequired[int]
    device_type: NotRequired[int]
    device_id: NotRequired[int]
    segment: NotRequired[int]
    stream: NotRequired[int]
    requested: NotRequired[int]
    pool: NotRequired[str]
    from_cache: NotRequired[bool]
    deferred: NotRequired[bool]


class SegmentArgs(TypedDict):
    addr: int
    bytes: int
    device: NotRequired[str]
    pool: NotRequired[str]
    stream: NotRequired[int]
    total_reserved: NotRequired[int]


class SplitArgs(TypedDict):
    addr: int
    bytes: int
    remainder_addr: int
    remainder_bytes: int
    segment: NotRequired[int]
    device: NotRequired[str]


class FreeCompletedArgs(TypedDict):
    addr: int
    bytes: int
    device: NotRequired[str]


class OomArgs(TypedDict):
    bytes: int
    device: str
    device_free: int
    total_allocated: NotRequired[int]
    total_reserved: NotRequired[int]
    device_type: NotRequired[int]
    device_id: NotRequired[int]


class GradFnArgs(TypedDict):
    node: str | None
    name: str
    sequence_nr: int
    next_edges: list[list[Any]]  # [node label, input_nr, node name]
    saved: dict[str, Any]
    outputs: list[ObjectRef | None]


INSTANT_ARGS: dict[str, type] = {
    STATEMENT: StatementArgs,
    NAMES: NamesArgs,
    PYTHON_CALL: PythonCallArgs,
    HANDLE_NEW: HandleNewArgs,
    HANDLE_DEL: HandleDelArgs,
    MAKE_INTRUSIVE: MakeIntrusiveArgs,
    INCREF: RefcountArgs,
    DECREF: RefcountArgs,
    DELETE: DeleteArgs,
    VIEW_BASE: ViewBaseArgs,
    TENSOR_META: TensorMetaArgs,
    TENSOR_STORAGE: TensorStorageArgs,
    STORAGE_DATA: StorageDataArgs,
    GRAD_FN: GradFnArgs,
    ALLOC: MemoryArgs,
    FREE: MemoryArgs,
    SEGMENT_ALLOC: SegmentArgs,
    SEGMENT_FREE: SegmentArgs,
    SPLIT: SplitArgs,
    FREE_COMPLETED: FreeCompletedArgs,
    OOM: OomArgs,
}
INSTANT_KINDS = frozenset(INSTANT_ARGS)
MEMORY_KINDS = frozenset({ALLOC, FREE})


# ---- frames -----------------------------------------------------------------------------------
class BeginArgs(TypedDict):
    """A frame's BEGIN: its arguments (summaries), and what the frame itself recorded: an
    operator's overload, dispatch key set, dispatch key and kernel."""

    args: NotRequired[dict[str, Any]]
    overload: NotRequired[str]
    dispatch_key_set: NotRequired[str]
    dispatch_key: NotRequired[str]
    kernel: NotRequired[str]


class EndArgs(TypedDict):
    """A frame's END: its result's summary, or the error that crossed it."""

    result: NotRequired[Any]
    error: NotRequired[str]


# ---- structured summaries ---------------------------------------------------------------------
SUMMARY = "$"  # the key that says a dict is a summary, and of what
TENSOR = "Tensor"  # an at::Tensor
HANDLE = "THPVariable"  # a Python tensor handle


class TensorSummary(TypedDict):
    impl: ObjectRef | None  # None: an undefined tensor
    sizes: NotRequired[list[int]]
    dtype: NotRequired[str]


class HandleSummary(TypedDict):
    handle: int
    impl: ObjectRef | None
    sizes: NotRequired[list[int]]
    dtype: NotRequired[str]


class TensorImplSummary(TypedDict):
    object: ObjectRef
    sizes: list[int]
    strides: list[int]
    offset: int
    dtype: str


class StorageImplSummary(TypedDict):
    object: ObjectRef
    nbytes: int
    refcount: int


class AutogradMetaSummary(TypedDict):
    requires_grad: bool
    grad_fn: str | None
    base: ObjectRef | None


# `"$"` -> the TypedDict of the rest of the summary's fields
SUMMARY_FIELDS: dict[str, type] = {
    TENSOR: TensorSummary,
    HANDLE: HandleSummary,
    TENSOR_IMPL: TensorImplSummary,
    STORAGE_IMPL: StorageImplSummary,
    "AutogradMeta": AutogradMetaSummary,
}


def summary(kind: str, **fields: Any) -> dict[str, Any]:
    return {SUMMARY: kind, **fields}


def is_summary(value: object) -> bool:
    if type(value) is not dict:
        return False
    kind = value.get(SUMMARY)
    return type(kind) is str and kind in SUMMARY_FIELDS


def _same(ref: ObjectRef) -> str:
    return ref


def _handle_name(handle: int) -> str:
    return f"_h{handle}"


def render_summary(
    value: dict[str, Any],
    ref: Callable[[ObjectRef], str] = _same,
    handle: Callable[[int], str] = _handle_name,
) -> str:
    """A summary as one line of text; `ref` and `handle` say how to name objects and handles.

    The loader (format.py) has checked the fields a summary needs, so none is missing here.
    """
    kind = value[SUMMARY]
    if kind in (TENSOR, HANDLE) and value.get("impl") is None:
        return "Tensor(undefined)"
    if kind == TENSOR:
        return f"Tensor({ref(value['impl'])}, sizes={value.get('sizes')}, {value.get('dtype')})"
    if kind == HANDLE:
        return (
            f"{handle(value['handle'])}: {ref(value['impl'])} {value.get('sizes')} "
            f"{value.get('dtype')}"
        )
    if kind == TENSOR_IMPL:
        return (
            f"{ref(value['object'])}(sizes={value['sizes']}, strides={value['strides']}, "
            f"offset={value['offset']}, {value['dtype']})"
        )
    if kind == STORAGE_IMPL:
        return f"{ref(value['object'])}({value['nbytes']} bytes, refcount={value['refcount']})"
    base = value.get("base")
    return (
        f"AutogradMeta(requires_grad={value['requires_grad']}, grad_fn={value['grad_fn']}, "
        f"base={ref(base) if base is not None else None})"
    )


def render_value(
    value: Any, ref: Callable[[ObjectRef], str] = _same, handle: Callable[[int], str] = _handle_name
) -> Any:
    """JSON data with every summary in it rendered as text (for the Chrome export)."""
    if type(value) is dict:
        if is_summary(value):
            return render_summary(value, ref, handle)
        return {k: render_value(v, ref, handle) for k, v in value.items()}
    if type(value) is list:
        return [render_value(v, ref, handle) for v in value]
    return value
