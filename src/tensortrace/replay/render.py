"""A Timeline drawn with rich: the call stack as a tree, the objects as a table, one step's view.

No PyTorch counterpart (torch.profiler's tables are text, `key_averages().table()`): these are
the terminal's and Jupyter's pictures of a Timeline's state, shared by `Timeline.at(step)`, the
CLI and the notebooks. `to_text` and `to_html` render anything rich renders.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from tensortrace.replay.code_view import current_line
from tensortrace.replay.snapshot import StackFrame, State
from tensortrace.replay.tree import LAYER_STYLES

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline


def stack_tree(timeline: Timeline, step: int) -> Tree:
    """The call stack at `step` as a rich Tree, colored by layer, with PyTorch's names."""
    step = timeline._check(step)
    root = Tree(Text(f"call stack at step {step}", style="bold"), guide_style="bright_black")
    node = root
    for frame in timeline.stack_at(step):
        node = node.add(frame_text(frame))
    node.add(Text(timeline.describe_event(step), style="italic"))
    return root


def objects_table(timeline: Timeline, step: int) -> Table:
    """Handles, TensorImpls, StorageImpls and DataPtrs at `step`, with refcounts."""
    state = timeline.state_at(step)
    table = Table(
        title=f"objects at step {state.step}",
        title_justify="left",
        show_lines=False,
        expand=False,
    )
    for column in ("object", "refcount", "points to", "details"):
        table.add_column(column)
    for h in state.handles.values():
        table.add_row(
            Text(h.name, style=LAYER_STYLES["python"]),
            "",
            f"TensorImpl#{h.impl}" if h.impl is not None else "",
            "Python handle",
        )
    for t in state.tensors.values():
        table.add_row(
            Text(t.label, style=LAYER_STYLES["native"]),
            str(t.refcount),
            f"StorageImpl#{t.storage}" if t.storage is not None else "",
            t.describe(),
        )
    for s in state.storages.values():
        shared = ", ".join(f"TensorImpl#{t}" for t in s.tensors) or "no TensorImpl"
        table.add_row(
            Text(s.label, style=LAYER_STYLES["allocator"]),
            str(s.refcount),
            f"DataPtr {s.addr:#x}",
            f"{s.nbytes} B {s.device}, used by {shared}",
        )
    table.caption = f"allocated: {state.allocated} B in {len(state.live_blocks)} block(s)"
    return table


def code_text(timeline: Timeline, step: int | None = None) -> Text:
    here = current_line(timeline.code, timeline._check(step)) if step is not None else None
    text = Text()
    for i, line in enumerate(timeline.code):
        if i:
            text.append("\n")
        if i == here:
            text.append(line.text, style="bold reverse")
            text.append("  # <--- here", style="bold yellow")
        else:
            text.append(line.text)
    return text


class StepView:
    """A Timeline at one step: code with `<--- here`, the call stack and the objects."""

    def __init__(self, timeline: Timeline, step: int) -> None:
        self.timeline = timeline
        self.step = step

    @property
    def state(self) -> State:
        return self.timeline.state_at(self.step)

    def __rich__(self) -> RenderableType:
        t = self.timeline
        return Group(
            Text(f"step {self.step} / {len(t) - 1}: {t.describe_event(self.step)}", style="bold"),
            Panel(
                t.code_text(self.step), title="equivalent code", title_align="left", expand=False
            ),
            t.stack_tree(self.step),
            t.objects_table(self.step),
        )

    def _repr_html_(self) -> str:
        return to_html(self)


def frame_text(frame: StackFrame) -> Text:
    label = Text(frame.name, style=LAYER_STYLES.get(frame.layer, ""))
    label.append(f"  [{frame.layer}]", style="dim")
    if "dispatch_key" in frame.details:
        label.append(
            f"  {frame.details.get('dispatch_key_set', '')} → {frame.details['dispatch_key']}",
            style="magenta",
        )
    args = frame.args_text()
    if args:
        label.append(f"  ({args})")
    label.append(f"\n{frame.source}", style="dim italic")
    if frame.symbol != frame.name:
        label.append(f" :: {frame.symbol}", style="dim italic")
    if frame.legacy:
        label.append(f"  (2019: {frame.legacy})", style="dim")
    return label


def to_text(renderable: Any, width: int = 120) -> str:
    """Render anything rich can render to plain text (goldens, logs)."""
    console = Console(
        width=width, record=True, color_system=None, force_terminal=False, file=io.StringIO()
    )
    console.print(renderable)
    return console.export_text()


def to_html(renderable: Any, width: int = 120) -> str:
    """Render to an HTML fragment with inline styles, for Jupyter's `_repr_html_`."""
    console = Console(
        width=width, record=True, file=io.StringIO(), force_terminal=True, color_system="truecolor"
    )
    console.print(renderable)
    return console.export_html(
        inline_styles=True,
        code_format='<pre style="font-family:ui-monospace,Menlo,Consolas,monospace;'
        'font-size:12px;line-height:1.3">{code}</pre>',
    )
