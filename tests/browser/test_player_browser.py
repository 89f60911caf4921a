"""The exported player page in Chromium, as a learner and a presenter use it.

Each check is one a browser can see: the innermost frame on screen at every step, the keys, the
debugger steps, search, the `#step=N` permalink, JupyterLab's dark theme, a narrow output area,
and no text under 11 px.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.widgets import standalone_html

from .conftest import REPO, OfflineGuard

SEED = REPO / "tests" / "data" / "seed_000_trace.json"

# The colours JupyterLab 4's dark theme gives the variables the player reads.
JUPYTERLAB_DARK = """
body { background: #111111; --jp-layout-color0: #111111; --jp-layout-color1: #212121;
  --jp-layout-color2: #424242; --jp-ui-font-color1: rgba(255, 255, 255, 0.87);
  --jp-ui-font-color2: rgba(255, 255, 255, 0.54); --jp-border-color1: #616161; }
"""


@pytest.fixture(scope="module")
def timeline() -> Timeline:
    return Timeline(Trace.load(SEED))


@pytest.fixture(scope="module")
def page_path(timeline: Timeline, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("player") / "seed.html"
    out.write_text(standalone_html(timeline), encoding="utf-8")
    return out


def open_player(page: Any, url: str) -> Any:
    page.goto(url)
    player = page.locator(".tt-player")
    player.wait_for(state="visible")
    return player


def current_step(player: Any) -> int:
    return int(player.get_attribute("data-step"))


def test_the_innermost_frame_is_visible_at_every_step(
    page: tuple[Any, OfflineGuard], page_path: Path, timeline: Timeline
) -> None:
    browser_page, guard = page
    open_player(browser_page, page_path.as_uri())
    hidden = browser_page.evaluate(
        """(n) => {
        const slider = document.querySelector('.tt-slider');
        const box = document.querySelector('.tt-stack');
        const hidden = [];
        for (let s = 0; s < n; s++) {
            slider.value = String(s);
            slider.dispatchEvent(new Event('input'));
            const frames = box.querySelectorAll('.tt-frame');
            if (!frames.length) continue;
            const inner = frames[frames.length - 1].getBoundingClientRect();
            const outer = box.getBoundingClientRect();
            if (inner.top < outer.top - 1 || inner.bottom > outer.bottom + 1) hidden.push(s);
        }
        return hidden;
    }""",
        len(timeline),
    )
    assert hidden == []
    assert guard.blocked == []


def test_keys_debugger_steps_and_search(
    page: tuple[Any, OfflineGuard], page_path: Path, timeline: Timeline
) -> None:
    browser_page, _ = page
    player = open_player(browser_page, page_path.as_uri())
    player.locator(".tt-count").click()  # focus the player, as a learner does
    browser_page.keyboard.press("End")
    assert current_step(player) == len(timeline) - 1
    browser_page.keyboard.press("Home")
    assert current_step(player) == 0
    browser_page.keyboard.press("PageDown")  # the next line of the equivalent code
    assert current_step(player) == timeline.next("statement", 0)
    browser_page.keyboard.press("Home")

    # step into the first call, over it, and out of the function a step lands in
    player.locator("button[data-act='into']").click()
    first = current_step(player)
    assert timeline.trace.events[first].ph == "B"
    player.locator("button[data-act='over']").click()
    end = current_step(player)
    assert timeline.trace.events[end].ph == "E"
    assert timeline.trace.events[end].name == timeline.trace.events[first].name
    player.locator("button[data-act='into']").click()
    player.locator("button[data-act='into']").click()
    inner = current_step(player)
    depth = len(timeline.stack_at(inner))
    player.locator("button[data-act='out']").click()
    out = current_step(player)
    assert timeline.trace.events[out].ph == "E" and len(timeline.stack_at(out)) == depth - 1

    # search by function name, then by step number
    search = player.locator(".tt-search")
    search.fill("add_kernel")
    search.press("Enter")
    assert "add_kernel" in (player.locator(".tt-stack").text_content() or "")
    search.fill("120")
    search.press("Enter")
    assert current_step(player) == 120

    # a click on a frame goes to its first step; a click on a code line to the line's first step
    frame = player.locator(".tt-frame").first
    begin = int(frame.get_attribute("data-begin"))
    frame.click()
    assert current_step(player) == begin
    line = player.locator(".tt-line").nth(2)
    line.click()
    assert current_step(player) == int(line.get_attribute("data-start"))


def test_permalink_opens_at_its_step_and_follows(
    page: tuple[Any, OfflineGuard], page_path: Path
) -> None:
    browser_page, _ = page
    player = open_player(browser_page, page_path.as_uri() + "#step=120")
    assert current_step(player) == 120
    player.locator("button[data-act='fwd']").click()
    browser_page.wait_for_function("location.hash === '#step=121'", timeout=5_000)


def _contrast(fg: list[float], bg: list[float]) -> float:
    def luminance(rgb: list[float]) -> float:
        channels = [c / 255 for c in rgb[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# Each text-bearing element's colour, blended over the first opaque background behind it.
TEXT_COLOURS = """() => {
    // rgb(255, 0, 0) / rgba(...) in 0..255, or color(srgb 1 0 0 / a) (color-mix) in 0..1
    const rgba = (c) => {
        const v = (c.match(/[\\d.]+/g) || []).map(Number);
        if (!c.startsWith('color(')) return v;
        return v.map((x, i) => (i < 3 ? x * 255 : x));
    };
    const blend = (fg, bg) => { const a = fg.length > 3 ? fg[3] : 1;
        return [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a)); };
    const background = (el) => {
        for (; el; el = el.parentElement) {
            if (el instanceof SVGElement && !(el instanceof SVGSVGElement)) continue;
            const c = rgba(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
        }
        return [255, 255, 255];
    };
    const out = [];
    for (const el of document.querySelectorAll('.tt-player *')) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || el.closest('details:not([open]) > div, option, datalist, title')) continue;
        const style = getComputedStyle(el);
        const fg = rgba(el instanceof SVGElement ? style.fill : style.color);
        const bg = background(el);
        out.push([el.tagName + '.' + (el.getAttribute('class') || ''), blend(fg, bg), bg,
                  parseFloat(style.fontSize)]);
    }
    return out;
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_contrast_and_size(
    page: tuple[Any, OfflineGuard], page_path: Path, theme: str
) -> None:
    browser_page, _ = page
    open_player(browser_page, page_path.as_uri() + "#step=98")
    if theme == "dark":
        browser_page.add_style_tag(content=JUPYTERLAB_DARK)
        browser_page.evaluate("document.body.dataset.jpThemeLight = 'false'")
    browser_page.locator(".tt-legend summary").click()
    low, small = [], []
    for name, fg, bg, size in browser_page.evaluate(TEXT_COLOURS):
        if _contrast(fg, bg) < 4.5:
            low.append((name, round(_contrast(fg, bg), 2)))
        if size < 11:
            small.append((name, size))
    assert (low, small) == ([], []), (low, small)


def test_a_narrow_output_area_gets_one_column(
    page: tuple[Any, OfflineGuard], page_path: Path
) -> None:
    browser_page, _ = page
    browser_page.set_viewport_size({"width": 900, "height": 900})
    open_player(browser_page, page_path.as_uri() + "#step=98")
    # JupyterLab with its sidebar open leaves a 900 px window about 560 px of output area
    browser_page.add_style_tag(content="#tt-root { width: 560px; }")
    overflow = browser_page.evaluate("""() => {
        const right = document.querySelector('.tt-player').getBoundingClientRect().right;
        const scrollers = '.tt-graph-box *, .tt-memory-box *, .tt-code *, .tt-stack *';
        return [...document.querySelectorAll('.tt-player *')]
            .filter((el) => !el.matches(scrollers) && el.getBoundingClientRect().right > right + 1)
            .map((el) => el.tagName + '.' + (el.getAttribute('class') || ''));
    }""")
    assert overflow == []
    columns = browser_page.evaluate(
        "getComputedStyle(document.querySelector('.tt-grid')).gridTemplateColumns.split(' ').length"
    )
    assert columns == 1


def test_values_and_storage_strip_of_the_picked_tensor(
    page: tuple[Any, OfflineGuard], tmp_path: Path
) -> None:
    """Seed 003: x = set_(data's storage, offset 3, size (2, 3), stride (5, 2)) reaches
    storage elements 3 5 7 / 8 10 12, and prints as torch prints it."""
    import tensortrace as torch

    with torch.record() as t:
        data = torch.arange(24, dtype=torch.float32).view(2, 3, 4)
        x = data.as_strided((2, 3), (5, 2), 3)
    path = tmp_path / "values.html"
    path.write_text(standalone_html(t), encoding="utf-8")
    browser_page, _ = page
    player = open_player(browser_page, path.as_uri() + f"#step={len(t.events) - 1}")
    impl = next(
        k
        for k, row in Timeline(t).tables_at(len(t.events) - 1)["t"].items()
        if row["sizes"] == [2, 3]
    )
    player.locator(f".tt-impl[data-tensor='{impl}']").click()
    assert player.locator(".tt-values-text").inner_text() == repr(x)
    reached = player.locator(".tt-strip .tt-reached small").all_inner_texts()
    assert reached == ["3", "5", "7", "8", "10", "12"]
    assert player.locator(".tt-strip .tt-cell").count() == data.numel()
    # the pick holds while stepping back, until the tensor does not exist yet
    browser_page.keyboard.press("ArrowLeft")
    assert player.locator(".tt-values-text").inner_text() == repr(x)
    browser_page.screenshot(path=str(tmp_path / "values.png"), full_page=True)
