"""The slide deck builds into one offline HTML file that replays the seed timeline."""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SLIDES = Path(__file__).resolve().parent.parent.parent / "slides"
HARMLESS = (
    # the SVG namespace of every inline picture: an identifier, never fetched
    "http://www.w3.org/2000/svg",
    # reveal.js's MIT license header (kept, as the license asks): comment text
    "https://revealjs.com",
    "https://hakim.se",
    # the notes plugin's bundled markdown parser (marked): its autolinker prefixes a bare
    # `www.` link with this scheme, and its license header names its repository
    "http://`",
    "https://github.com/markedjs/marked",
)


def build_deck(out: Path) -> str:
    if not (SLIDES / "node_modules" / "reveal.js").is_dir() and shutil.which("npm") is None:
        pytest.skip("reveal.js is not installed and npm is absent")
    done = subprocess.run(
        [sys.executable, str(SLIDES / "build.py"), "build", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out.read_text()


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_deck(tmp_path_factory.mktemp("deck") / "index.html")


def test_no_external_url(deck: str) -> None:
    spec = importlib.util.spec_from_file_location("tensortrace_slides_build", SLIDES / "build.py")
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = builder  # its dataclasses look their module up while being made
    try:
        spec.loader.exec_module(builder)
    finally:
        del sys.modules[spec.name]
    assert builder.external_references(deck) == []
    for text in (deck, html.unescape(deck)):
        for attr in re.findall(r"""\b(?:src|href)\s*=\s*["']([^"']*)""", text, re.IGNORECASE):
            assert not re.match(r"\s*(https?:)?//", attr, re.IGNORECASE), attr
        # every other http(s) in the page is one of the harmless texts
        for url in re.findall(r"https?://[^\s\"'<>)]*", text):
            assert any(url.startswith(ok) for ok in HARMLESS), url


def test_one_file_with_reveal_inlined(deck: str) -> None:
    assert deck.startswith("<!doctype html>")
    assert "<link" not in deck and not re.search(r"<script[^>]+src=", deck)
    assert "Reveal.initialize(" in deck


def test_the_seed_timeline_is_replayed(deck: str) -> None:
    lines = [
        "_t1 = torch.rand(3, 4)",
        "_t2 = _t1.__getitem__(0)",
        "del _t1",
        "_t3 = torch.rand(3, 4)",
        "r = _t2.__add__(_t3)",
        "del _t2",
        "del _t3",
    ]
    for i, line in enumerate(lines):
        section = re.search(rf'<section data-line="{i}".*?</section>', deck, re.DOTALL)
        assert section is not None, line
        body = section.group(0)
        assert f'<h3 class="line">{html.escape(line)}</h3>' in body
        assert f'<mark class="here">{html.escape(line)}  # &lt;--- here</mark>' in body
        assert body.count("<svg ") == 1  # the object graph after that line
    assert "<code>del _t1</code> frees nothing" in deck
    assert "<code>del _t2</code> frees 48 bytes of StorageImpl#1" in deck


def test_the_player_is_embedded(deck: str) -> None:
    match = re.search(r'<iframe class="player"[^>]*srcdoc="([^"]*)"', deck)
    assert match is not None
    page = html.unescape(match.group(1))
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert 'id="tt-payload"' in page and "mount(" in page


def test_the_autograd_story_is_told(deck: str) -> None:
    """Seed 004: the graph `a + b` records, backward() walking it, one training step."""
    graph = re.search(r'<section data-state="autograd-graph">.*?</section>', deck, re.DOTALL)
    backward = re.search(r'<section data-state="backward">.*?</section>', deck, re.DOTALL)
    step = re.search(r'<section data-state="training-step">.*?</section>', deck, re.DOTALL)
    assert graph and backward and step
    # before backward nothing ran; after it every node carries its evaluation order
    assert 'data-node="AddBackward0#0"' in graph.group(0) and " ran" not in graph.group(0)
    assert backward.group(0).count('class="node backward ran"') == 3
    assert backward.group(0).count('class="node accumulate ran"') == 2
    for name in ("NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "ReluBackward0"):
        assert name in step.group(0)
    assert "aten::linear" in step.group(0) and "aten::cross_entropy_loss" in step.group(0)


def test_the_caching_allocator_story(deck: str) -> None:
    section = re.search(
        r"<section><h2>On <code>cuda</code>: the caching allocator</h2>.*?"
        r"</section>",
        deck,
        re.DOTALL,
    )
    assert section is not None
    body = section.group(0)
    assert body.count("<td>alloc 48 B</td><td>512 B</td>") == 3
    assert "<td>new 2 MiB segment (cudaMalloc)</td>" in body
    assert body.count("<td>from the cache</td>") == 2
    assert "<td>del x</td><td>0.0 MiB</td><td>100.0 MiB</td>" in deck
    assert "<td>one 8 MiB request</td><td>48.0 MiB</td><td>100.0 MiB</td><td>5</td>" in deck
    assert "(<code>num_alloc_retries</code> = 1)" in deck
    assert "CUDA out of memory. Tried to allocate 20.00 MiB." in deck


def test_every_slide_has_speaker_notes(deck: str) -> None:
    slides = re.findall(r"<section[ >].*?</section>", deck, re.DOTALL)
    assert len(slides) >= 10
    missing = [
        re.search(r"<h[23][^>]*>(.*?)</h[23]>", s).group(1)  # type: ignore[union-attr]
        for s in slides
        if '<aside class="notes">' not in s
    ]
    assert missing == []
    assert "RevealNotes" in deck  # the speaker view's plugin, inlined
