"""TimelinePlayer: step through a trace in Jupyter, in an exported HTML page, or in slides.

No PyTorch counterpart (torch.profiler's traces are read in Perfetto / chrome://tracing); this is
the replay view of seed 000: the equivalent code with `# <--- here`, the call stack with each
frame's PyTorch file, C++ symbol and 2019 name, the object graph of seed 001 (Python handle ->
TensorImpl -> StorageImpl -> DataPtr, refcounts, views sharing one storage) drawn live in SVG,
and the allocator's blocks by address over time.

The Timeline's payload (tensortrace/replay/payload.py) is sent to the browser once; play, step,
the slider and the jump buttons (next/previous line, `aten::` operator, kernel, allocation, free)
run in JavaScript with no kernel round trip. The synced trait `step` is the position:
`player.step = 120` moves the page, and the page moving updates `player.step`. `player.view` is
the text of what the panels show at that step, kept in sync from Python (tests and logs read it);
`player.state_at(step)` is the full State.

Stable API for the slides (keep these names):
- `standalone_html(source, step=0, title=...) -> str`: a self-contained page, every byte of JS
  and CSS inline and no URL of any kind, with the same player; `source` is a Trace, a Timeline,
  a payload dict or a TimelinePlayer.
- `TimelinePlayer.standalone_html()` and `TimelinePlayer.to_html(path)`: the same for a player,
  starting at its current step.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from tensortrace.replay.payload import check_payload
from tensortrace.replay.snapshot import State
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.widgets.script_json import script_json

STATIC = Path(__file__).parent / "static"
# One ES module in four files, kept small: the replay, the drawing, the values panel, the UI
PLAYER_PARTS = ("replay.js", "draw.js", "values.js", "player.js")
PLAYER_JS = "".join((STATIC / part).read_text() for part in PLAYER_PARTS)
PLAYER_CSS = (STATIC / "player.css").read_text()


class TimelinePlayer(anywidget.AnyWidget):
    """`TimelinePlayer(trace)`: the replay of a trace as a widget; `step` is synced both ways."""

    _esm = PLAYER_JS
    _css = PLAYER_CSS

    payload = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    view = traitlets.Unicode("").tag(sync=True)
    # bigger type and fewer panels, for a projector (the deck uses it too)
    presentation = traitlets.Bool(False).tag(sync=True)

    def __init__(
        self,
        source: Trace | Timeline,
        step: int = 0,
        title: str = "tensortrace",
        presentation: bool = False,
        **kwargs: Any,
    ) -> None:
        self.timeline = source if isinstance(source, Timeline) else Timeline(source)
        if len(self.timeline) == 0:
            raise ValueError("cannot play an empty trace")
        super().__init__(
            payload=self.timeline.payload() | {"title": title}, presentation=presentation, **kwargs
        )
        self.step = step
        self.view = view_text(self.timeline, self.step)

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict[str, Any]) -> int:
        step = int(proposal["value"])
        n = len(self.timeline)
        if not 0 <= step < n:
            raise traitlets.TraitError(f"step {step} out of range 0..{n - 1}")
        return step

    @traitlets.observe("step")
    def _show(self, change: dict[str, Any]) -> None:
        self.view = view_text(self.timeline, change["new"])

    # ---- Python side of the controls ---------------------------------------------------------
    def state_at(self, step: int | None = None) -> State:
        return self.timeline.state_at(self.step if step is None else step)

    def next(self, kind: str) -> int:
        """Move to the next step of `kind` (NAV_KINDS); stays put when there is none."""
        found = self.timeline.next(kind, self.step)
        if found is not None:
            self.step = found
        return self.step

    def prev(self, kind: str) -> int:
        found = self.timeline.prev(kind, self.step)
        if found is not None:
            self.step = found
        return self.step

    # ---- export ------------------------------------------------------------------------------
    def standalone_html(self, deck: bool = False) -> str:
        return standalone_html(self, deck=deck)

    def to_html(self, path: str | os.PathLike[str]) -> Path:
        out = Path(path)
        out.write_text(self.standalone_html(), encoding="utf-8")
        return out


def view_text(timeline: Timeline, step: int) -> str:
    """What the player's panels show at `step`, as plain text."""
    state = timeline.state_at(step)
    lines = [
        f"step {step} / {len(timeline) - 1}: {state.event}",
        "",
        timeline.code_view(step),
        "",
        "call stack:",
    ]
    for depth, frame in enumerate(state.stack):
        legacy = f" (2019: {frame.legacy})" if frame.legacy else ""
        lines.append(f"{'  ' * (depth + 1)}{frame.name} [{frame.layer}] {frame.source}{legacy}")
    lines.append("objects:")
    for h in state.handles.values():
        lines.append(f"  {h.name} -> TensorImpl#{h.impl}")
    for t in state.tensors.values():
        lines.append(f"  {t.label} refcount={t.refcount} {t.describe()} -> StorageImpl#{t.storage}")
    for s in state.storages.values():
        lines.append(f"  {s.label} refcount={s.refcount} nbytes={s.nbytes} -> DataPtr {s.addr:#x}")
    lines.append(f"allocated: {state.allocated} B in {len(state.live_blocks)} block(s)")
    return "\n".join(lines)


def _payload_of(source: Trace | Timeline | TimelinePlayer | dict[str, Any]) -> dict[str, Any]:
    if isinstance(source, Timeline):
        timeline: Timeline = source  # not TimelinePlayer's payload trait (anywidget is untyped)
        return timeline.payload()
    if isinstance(source, TimelinePlayer):
        return source.payload
    if isinstance(source, Trace):
        return Timeline(source).payload()
    check_payload(source)
    return source


def standalone_html(
    source: Trace | Timeline | TimelinePlayer | dict[str, Any],
    step: int | None = None,
    title: str | None = None,
    presentation: bool | None = None,
    deck: bool = False,
) -> str:
    """A self-contained HTML page with the player: all JS, CSS and data inline, no URL at all.

    The page opens at `#step=N` when its URL says so, and keeps that fragment up to date as a
    permalink. `deck=True` is for a page inside the slides' iframe: the presenter's keys
    (PageDown, PageUp, Space, Esc, arrows with a modifier) go up to reveal.js.
    """
    payload = _payload_of(source)
    if step is None:
        step = source.step if isinstance(source, TimelinePlayer) else 0
    title = title or payload.get("title", "tensortrace")
    data = script_json(payload)  # no `<`, `>`, `&`, U+2028, U+2029: safe for any string
    if "</script" in PLAYER_JS.lower():
        raise AssertionError("the player's JS must not contain a closing script tag")
    if presentation is None:
        presentation = isinstance(source, TimelinePlayer) and source.presentation
    options = script_json({"deck": bool(deck), "presentation": bool(presentation)})
    boot = (
        f"\nconst options = {options};\n"
        "const permalink = /(?:^#|&)step=(\\d+)/.exec(location.hash);\n"
        f"const start = permalink ? Number(permalink[1]) : {int(step)};\n"
        "const model = standaloneModel("
        "JSON.parse(document.getElementById('tt-payload').textContent), start);\n"
        "options.onShow = (s) => {\n"
        "  // in the deck the page above keeps the permalink (`#step=N` of the deck's URL)\n"
        "  if (options.deck) {\n"
        "    window.parent.postMessage({ type: 'tensortrace-step', step: s }, '*');\n"
        "    return;\n"
        "  }\n"
        "  // replaceState costs milliseconds: the URL follows once stepping pauses\n"
        "  clearTimeout(options.linkTimer);\n"
        "  options.linkTimer = setTimeout(() => {\n"
        "    try { history.replaceState(null, '', '#step=' + s); }\n"
        "    catch (e) { /* a sandboxed frame */ }\n"
        "  }, 150);\n"
        "};\n"
        "mount(document.getElementById('tt-root'), model, options);\n"
        "if (options.deck) {\n"
        "  window.addEventListener('message', (event) => {\n"
        "    const m = event.data;\n"
        "    if (event.source !== window.parent || !m) return;\n"
        "    if (m.type !== 'tensortrace-goto') return;\n"
        "    const n = model.get('payload').n;\n"
        "    model.set('step', Math.max(0, Math.min(n - 1, Number(m.step) | 0)));\n"
        "  });\n"
        "  window.parent.postMessage({ type: 'tensortrace-ready' }, '*');\n"
        "}\n"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{PLAYER_CSS}\n"
        "body { margin: 16px; background: #ffffff; }\n</style>\n</head>\n<body>\n"
        '<div id="tt-root"></div>\n'
        f'<script type="application/json" id="tt-payload">{data}</script>\n'
        f'<script type="module">\n{PLAYER_JS}{boot}</script>\n</body>\n</html>\n'
    )
