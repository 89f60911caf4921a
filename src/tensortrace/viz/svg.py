"""A tiny SVG writer: the pictures of tensortrace are plain SVG text, drawn by the project itself.

No PyTorch counterpart (PyTorch draws nothing). Every picture is an `SvgPicture`: Jupyter shows
it through `_repr_html_` (inline, so it follows JupyterLab's light and dark themes: text and lines
are `currentColor`, hues are translucent) or `_repr_svg_`; `str()` gives the SVG document,
`save(path)` writes it. Elements carry
`class` and `data-*` attributes so tests (and CSS) can find what a picture highlights.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

# One color per trace layer, shared by every picture (the rich tree uses the same hues).
LAYER_COLORS: dict[str, str] = {
    "python": "#3b6fd8",
    "dispatch": "#a23cc0",
    "autograd": "#c79a00",
    "native": "#2e9e4f",
    "kernel": "#d03b3b",
    "allocator": "#1b9aaa",
    "refcount": "#6b6b6b",
}

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"

# Object kinds in the object graph, as fill / stroke pairs.
KIND_COLORS: dict[str, tuple[str, str]] = {
    "handle": ("#e7efff", LAYER_COLORS["python"]),
    "impl": ("#e9f7ee", LAYER_COLORS["native"]),
    "storage": ("#e6f6f8", LAYER_COLORS["allocator"]),
    "dataptr": ("#f3f3f3", "#555555"),
}

HIGHLIGHT = "#ff8c00"

# Text and lines take the colour of the text around the picture: inline in JupyterLab's HTML
# output that is the theme's (light or dark) font colour, in a file viewed alone black. Hues
# are kept for shapes, as strokes or translucent fills, which read on either background.
INK = "currentColor"
SOFT: dict[str, Any] = {"fill": INK, "fill_opacity": 0.8}  # secondary text
MUTED: dict[str, Any] = {"fill": INK, "fill_opacity": 0.7}  # notes and captions
EDGE: dict[str, Any] = {"stroke": INK, "stroke_opacity": 0.8}  # arrows


def _attrs(attrs: dict[str, object]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")  # class_ -> class, data_index -> data-index
        parts.append(f"{name}={quoteattr(str(value))}")
    return " ".join(parts)


def element(tag: str, text: str | None = None, **attrs: object) -> str:
    """One SVG element; `text` is escaped, attribute names map `_` to `-`."""
    head = f"<{tag} {_attrs(attrs)}".rstrip()
    if text is None:
        return head + "/>"
    return f"{head}>{escape(text)}</{tag}>"


def rect(x: float, y: float, w: float, h: float, **attrs: object) -> str:
    return element("rect", None, x=_n(x), y=_n(y), width=_n(w), height=_n(h), **attrs)


def text(
    x: float, y: float, content: str, size: float = 12, anchor: str = "start", **attrs: object
) -> str:
    attrs.setdefault("fill", INK)
    return element(
        "text", content, x=_n(x), y=_n(y), font_size=_n(size), text_anchor=anchor, **attrs
    )


def line(x1: float, y1: float, x2: float, y2: float, **attrs: object) -> str:
    return element("line", None, x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), **attrs)


def path(d: str, **attrs: object) -> str:
    return element("path", None, d=d, **attrs)


def group(children: list[str], **attrs: object) -> str:
    return f"<g {_attrs(attrs)}>".replace("<g >", "<g>") + "".join(children) + "</g>"


def title(content: str) -> str:
    """A tooltip: browsers show an element's <title> child on hover."""
    return element("title", content)


def _n(value: float) -> str:
    """Numbers without float noise, so the SVG text is stable (and golden tests are)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def arrow_marker(marker_id: str, color: str) -> str:
    return (
        f'<marker id="{marker_id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse">'
        f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{color}"/></marker>'
    )


class SvgPicture:
    """An SVG document with a size; shown inline by Jupyter, written to disk by `save`."""

    def __init__(
        self,
        width: float,
        height: float,
        body: list[str],
        defs: list[str] | None = None,
        label: str = "",
    ) -> None:
        self.width = width
        self.height = height
        self.body = body
        self.defs = defs or []
        self.label = label

    def to_svg(self) -> str:
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}" '
            f'height="{_n(self.height)}" viewBox="0 0 {_n(self.width)} {_n(self.height)}" '
            f'font-family="{FONT}" role="img" aria-label={quoteattr(self.label)}>'
            f"{defs}{''.join(self.body)}</svg>"
        )

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def _repr_html_(self) -> str:
        # JupyterLab draws image/svg+xml inside an <img>, where currentColor is always black
        # (unreadable on its dark theme); HTML output puts the SVG in the page, so its text takes
        # the theme's font colour. Jupyter prefers text/html when both are offered.
        return (
            '<div class="tt-viz" style="color: var(--jp-content-font-color1, inherit); '
            f'overflow-x: auto">{self.to_svg()}</div>'
        )

    def __str__(self) -> str:
        return self.to_svg()

    def save(self, path_: str | os.PathLike[str]) -> None:
        Path(path_).write_text(self.to_svg())
