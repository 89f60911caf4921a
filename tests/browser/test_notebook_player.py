"""Notebook 1 in JupyterLab, in Chromium: run it, then step the TimelinePlayer by clicks."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, OfflineGuard

PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError

NOTEBOOK = REPO / "notebooks" / "01_seed_timeline.ipynb"
RUN_TIMEOUT_MS = 120_000


def step_of(player: Any) -> tuple[int, int]:
    # textContent, not innerText: JupyterLab skips rendering off-screen cells (content-visibility)
    text = player.locator(".tt-count").text_content() or ""
    match = re.search(r"step (\d+)\s*/\s*(\d+)", text)
    assert match is not None, repr(text)
    return int(match.group(1)), int(match.group(2))


def test_notebook_1_player_steps_by_clicks(
    jupyterlab: tuple[str, Path], page: tuple[Any, OfflineGuard]
) -> None:
    base, root = jupyterlab
    browser_page, _guard = page
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    browser_page.goto(f"{base}/lab/tree/{NOTEBOOK.name}", wait_until="domcontentloaded")
    browser_page.wait_for_function("window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
    browser_page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # a fresh lab may ask which kernel to start: take the notebook's own (python3)
    accept = browser_page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept")
    try:
        accept.wait_for(state="visible", timeout=10_000)
        accept.click()
    except PlaywrightTimeout:
        pass
    # wait for the kernel, then run every cell, as "Run > Run All Cells" does
    browser_page.wait_for_selector(
        ".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000
    )
    # fire and forget: awaiting the command's promise is unbounded (evaluate has no timeout)
    browser_page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    # read the notebook's model, not the prompts: a cell whose input is hidden (the exercises'
    # check cells) shows no prompt
    browser_page.wait_for_function(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            const cells = panel && panel.content && panel.content.model
                ? panel.content.model.cells : null;
            if (!cells || !cells.length) return false;
            for (let i = 0; i < cells.length; i++) {
                const cell = cells.get(i);
                if (cell.type === 'code' && !(cell.executionCount > 0)) return false;
            }
            return true;
        }""",
        timeout=RUN_TIMEOUT_MS,
    )
    errors = browser_page.locator(
        ".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']"
    )
    assert errors.count() == 0, errors.all_inner_texts()

    player = browser_page.locator(".tt-player").first
    player.wait_for(state="visible", timeout=60_000)
    # the notebook's last `player.step = ...` (the first free) reached the page through the trait
    browser_page.wait_for_function(
        "el => /free 48 B/.test(el.querySelector('.tt-event').textContent)",
        arg=player.element_handle(),
        timeout=20_000,
    )
    step, last = step_of(player)
    assert 0 < step < last and last > 200
    assert "del _t2" in (player.locator(".tt-code .tt-here").text_content() or "")

    # step forward by clicks: the counter, the event line and the panels follow
    fwd = player.locator("button[data-act='fwd']")
    for k in range(1, 4):
        fwd.click()
        browser_page.wait_for_function(
            "([el, want]) => el.querySelector('.tt-count').textContent.includes(want)",
            arg=[player.element_handle(), f"step {step + k} /"],
            timeout=10_000,
        )
    assert step_of(player)[0] == step + 3

    # back to the start, then jump to the first allocation with the navigation buttons
    player.locator("button[data-act='first']").click()
    assert step_of(player)[0] == 0
    assert "_t1 = torch.rand(3, 4)" in (player.locator(".tt-code .tt-here").text_content() or "")
    player.locator("button[data-next='alloc']").click()
    browser_page.wait_for_function(
        "el => /alloc 48 B/.test(el.querySelector('.tt-event').textContent)",
        arg=player.element_handle(),
        timeout=10_000,
    )
    assert "THPVariable_rand" in (player.locator(".tt-stack").text_content() or "")
    assert player.locator(".tt-graph-box svg").count() == 1
    assert player.locator(".tt-memory-box svg .tt-block").count() >= 1

    # next line: `_t2 = _t1.__getitem__(0)` becomes the line in progress
    player.locator("button[data-next='statement']").click()
    browser_page.wait_for_function(
        "el => el.querySelector('.tt-code .tt-here').textContent.includes('__getitem__')",
        arg=player.element_handle(),
        timeout=10_000,
    )

    # with focus in the player, JupyterLab's command-mode keys must not act on the notebook:
    # `b` would insert a cell, `j`/`k` move the active cell, `d d` delete it
    count = "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length"
    active = (
        "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]"
        ".findIndex(c => c.classList.contains('jp-mod-active'))"
    )
    cells, current = browser_page.evaluate(count), browser_page.evaluate(active)
    player.locator(".tt-count").click()
    for key in ("b", "a", "j", "k", "d", "d", "m"):
        browser_page.keyboard.press(key)
    browser_page.wait_for_timeout(300)
    assert browser_page.evaluate(count) == cells
    assert browser_page.evaluate(active) == current
    # the player's own keys still work there
    before = step_of(player)[0]
    browser_page.keyboard.press("ArrowRight")
    browser_page.wait_for_function(
        "([el, want]) => el.querySelector('.tt-count').textContent.includes(want)",
        arg=[player.element_handle(), f"step {before + 1} /"],
        timeout=10_000,
    )
