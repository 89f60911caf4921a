"""The built deck in Chromium, offline: reveal.js steps the slides, the player steps inside."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, OfflineGuard

SLIDES = REPO / "slides"


@pytest.fixture(scope="module")
def deck_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (SLIDES / "node_modules" / "reveal.js").is_dir() and shutil.which("npm") is None:
        pytest.skip("reveal.js is not installed and npm is absent")
    out = tmp_path_factory.mktemp("deck") / "index.html"
    done = subprocess.run(
        [sys.executable, str(SLIDES / "build.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_deck_steps_offline(page: tuple[Any, OfflineGuard], deck_path: Path) -> None:
    browser_page, guard = page
    # the deck's own size, and no margin: reveal.js then draws the slides unscaled. (Playwright
    # aims clicks inside an iframe without the slide's scale transform, so they would miss.)
    browser_page.set_viewport_size({"width": 1280, "height": 760})
    browser_page.goto(deck_path.as_uri())
    browser_page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=15_000)
    browser_page.evaluate("Reveal.configure({margin: 0})")
    assert browser_page.evaluate("Reveal.getScale()") == 1
    total = browser_page.evaluate("Reveal.getTotalSlides()")
    assert total >= 10

    # step through the deck with the keyboard, as a presenter does
    seen = []
    for _ in range(total - 1):
        browser_page.keyboard.press("ArrowRight")
        browser_page.wait_for_timeout(50)
        seen.append(browser_page.evaluate("Reveal.getIndices().h"))
    assert seen == list(range(1, total))
    browser_page.evaluate("Reveal.slide(0)")

    # the line slides: `del _t1` is called out as freeing nothing
    index = browser_page.evaluate(
        "[...document.querySelectorAll('.slides > section')]"
        ".findIndex(s => s.querySelector('h3.line')?.textContent === 'del _t1')"
    )
    browser_page.evaluate(f"Reveal.slide({index})")
    current = browser_page.locator(".slides > section.present")
    assert "frees nothing" in current.locator(".callout").inner_text()
    assert current.locator("svg .node.impl").count() == 2

    # the player slide: its iframe runs the standalone player, stepped by clicks
    index = browser_page.evaluate(
        "[...document.querySelectorAll('.slides > section')]"
        ".findIndex(s => s.dataset.state === 'player')"
    )
    assert index > 0
    browser_page.evaluate(f"Reveal.slide({index})")
    frame = browser_page.frame_locator("section.present iframe.player")
    counter = frame.locator(".tt-count")
    counter.wait_for(state="visible", timeout=15_000)
    assert re.search(r"step 0 / \d+", counter.inner_text())
    for k in range(1, 4):
        frame.locator("button[data-act='fwd']").click()
        assert re.search(rf"step {k} / \d+", counter.inner_text())
    frame.locator("button[data-next='free']").click()
    assert "free 48 B" in frame.locator(".tt-event").inner_text()
    assert "del _t2" in frame.locator(".tt-code .tt-here").inner_text()

    # a click inside the player does not trap the presenter: PageDown still moves the deck
    frame.locator("button[data-act='fwd']").click()
    browser_page.keyboard.press("PageDown")
    browser_page.wait_for_function(f"Reveal.getIndices().h === {index + 1}", timeout=5_000)
    assert guard.blocked == [], f"the deck tried the network: {guard.blocked}"


def test_deck_permalink_opens_the_player_at_its_step(
    page: tuple[Any, OfflineGuard], deck_path: Path
) -> None:
    browser_page, guard = page
    browser_page.set_viewport_size({"width": 1280, "height": 760})
    browser_page.goto(deck_path.as_uri() + "#step=120")
    browser_page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=15_000)
    browser_page.wait_for_function(
        "Reveal.getCurrentSlide().dataset.state === 'player'", timeout=5_000
    )
    frame = browser_page.frame_locator("section.present iframe.player")
    counter = frame.locator(".tt-count")
    counter.wait_for(state="visible", timeout=15_000)
    frame.locator(".tt-player[data-step='120']").wait_for(timeout=5_000)
    assert re.search(r"step 120 / \d+", counter.inner_text())
    # stepping in the player keeps the deck's URL a permalink to what is on screen
    browser_page.evaluate("Reveal.configure({margin: 0})")
    frame.locator("button[data-act='fwd']").click()
    browser_page.wait_for_function("location.hash === '#step=121'", timeout=5_000)
    assert guard.blocked == [], f"the deck tried the network: {guard.blocked}"
