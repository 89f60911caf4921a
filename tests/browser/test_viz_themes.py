"""The static viz pictures inline in JupyterLab's light and dark themes: text readable on both.

JupyterLab draws `text/html` output in the page (an SVG there inherits the theme's font colour)
and `image/svg+xml` in an <img> (where it cannot); the pictures offer HTML, with text and lines
in `currentColor` and hues as translucent fills. Each text element's computed fill, blended by
its opacity over the page, must have a contrast of at least 4.5:1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.viz import autograd_graph, memory_map, object_graph, storage_strip

from .conftest import REPO, OfflineGuard
from .test_player_browser import _contrast

SEED = REPO / "tests" / "data" / "seed_000_trace.json"
THEMES = {
    # JupyterLab 4's --jp-layout-color0 and --jp-content-font-color1, light and dark
    "light": "body { background: #ffffff; --jp-content-font-color1: rgba(0, 0, 0, 0.87); }",
    "dark": "body { background: #111111; --jp-content-font-color1: rgba(255, 255, 255, 0.87); }",
}

TEXT_FILLS = """() => {
    const rgba = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const page = rgba(getComputedStyle(document.body).backgroundColor);
    return [...document.querySelectorAll('svg text')].filter((t) => t.textContent.trim())
        .map((t) => {
            const s = getComputedStyle(t);
            const fg = rgba(s.fill);
            const a = (fg.length > 3 ? fg[3] : 1) * parseFloat(s.fillOpacity) *
                parseFloat(s.opacity);
            return [t.textContent, [0, 1, 2].map((i) => fg[i] * a + page[i] * (1 - a)), page];
        });
}"""


def _pictures() -> str:
    timeline = Timeline(Trace.load(SEED))
    a = torch.rand(3, requires_grad=True)
    with torch.record() as backward:
        (a * a).sum().backward()
    data = torch.arange(24, dtype=torch.float32).view(2, 3, 4)
    return "".join(
        p._repr_html_()
        for p in (
            object_graph(timeline, 120),
            memory_map(timeline, 120),
            autograd_graph(backward),
            storage_strip(data, (1, 2, 2)),
        )
    )


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_viz_text_is_readable_in_both_themes(
    page: tuple[Any, OfflineGuard], tmp_path: Path, theme: str
) -> None:
    html = tmp_path / "viz.html"
    html.write_text(
        f"<!DOCTYPE html><html><head><style>{THEMES[theme]}"
        "body { color: var(--jp-content-font-color1); }</style></head>"
        f"<body>{_pictures()}</body></html>",
        encoding="utf-8",
    )
    browser_page, _ = page
    browser_page.goto(html.as_uri())
    fills = browser_page.evaluate(TEXT_FILLS)
    assert len(fills) > 50
    poor = [
        (text, round(_contrast(fg, bg), 2)) for text, fg, bg in fills if _contrast(fg, bg) < 4.5
    ]
    assert poor == []
    browser_page.screenshot(path=str(tmp_path / f"viz-{theme}.png"), full_page=True)
    if theme == "dark":
        browser_page.screenshot(path="/tmp/viz-dark.png", full_page=True)
