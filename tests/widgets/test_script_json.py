"""Exported pages embed their JSON safely: hostile strings survive the trip to JSON.parse."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import tensortrace
from tensortrace.replay import Timeline
from tensortrace.trace import run_source
from tensortrace.widgets import standalone_html
from tensortrace.widgets.script_json import script_json

record = getattr(tensortrace, "record", None) or tensortrace.trace

HOSTILE = [
    "</script>",
    "</SCRIPT >",
    "<!--<script>",
    "<!--",
    "-->",
    "<script>alert(1)</script>",
    "]]>",
    "<![CDATA[",
    "\u2028",
    "\u2029",
    "a\u2028b\u2029c",
    "&lt;",
    "&amp;",
    "&#60;",
    "<\\/script>",
    "\\u003c",
    "'\"`",
    "\x00",
    "\ud7ff\ue000\U0001f600",
    "<!--<script></script>",
    "</style><img src=x onerror=alert(1)>",
    "{{ }}",
    "${x}",
]

PAYLOAD_RE = re.compile(
    r'<script type="application/json" id="tt-payload">(.*?)</script>', re.DOTALL
)


def hostile_payload() -> dict[str, Any]:
    """A real replay payload whose code lines and title hold every hostile string."""
    source = "x = torch.rand(2)\n" + "\n".join(f"s{i} = {text!r}" for i, text in enumerate(HOSTILE))
    namespace: dict[str, Any] = {"torch": tensortrace}
    with record(source=source) as t:
        run_source(source, namespace)
    payload = Timeline(t).payload()
    payload["title"] = "".join(HOSTILE)
    text = json.dumps(payload)
    assert all(json.dumps(repr(h))[1:-1] in text for h in HOSTILE)  # in the code lines
    return payload


def embedded(page: str) -> str:
    match = PAYLOAD_RE.search(page)
    assert match is not None
    return match.group(1)


@pytest.mark.parametrize("text", HOSTILE)
def test_script_json_round_trips_and_holds_no_markup(text: str) -> None:
    data = {"s": text, "list": [text, {text: text}]}
    out = script_json(data)
    assert json.loads(out) == data
    assert not set(out) & {"<", ">", "&", "\u2028", "\u2029"}


def test_standalone_page_json_parses_back_to_the_payload() -> None:
    payload = hostile_payload()
    page = standalone_html(payload)
    assert page.count("</script>") == 2  # the payload's and the player's: nothing else closes
    assert json.loads(embedded(page)) == json.loads(json.dumps(payload))
    # `<!--<script>` would make the HTML parser skip the closing tag: no `<` may reach it
    assert not set(embedded(page)) & {"<", ">", "&", "\u2028", "\u2029"}
