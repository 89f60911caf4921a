"""An exported player page whose data holds hostile strings still runs in Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tensortrace.widgets import standalone_html

from ..widgets.test_script_json import hostile_payload
from .conftest import OfflineGuard


def test_hostile_strings_leave_the_page_working(
    page: tuple[Any, OfflineGuard], tmp_path: Path
) -> None:
    browser_page, guard = page
    payload = hostile_payload()
    out = tmp_path / "hostile.html"
    out.write_text(standalone_html(payload), encoding="utf-8")
    errors: list[str] = []
    browser_page.on("pageerror", lambda exc: errors.append(str(exc)))
    browser_page.goto(out.as_uri())
    browser_page.wait_for_selector(".tt-player .tt-count", timeout=15_000)
    parsed = browser_page.evaluate("JSON.parse(document.getElementById('tt-payload').textContent)")
    assert parsed == json.loads(json.dumps(payload))
    assert browser_page.evaluate("document.querySelectorAll('script').length") == 2
    assert "step 0" in (browser_page.locator(".tt-count").text_content() or "")
    assert errors == [] and guard.blocked == []
