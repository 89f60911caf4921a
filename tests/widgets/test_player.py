"""TimelinePlayer: the `step` trait drives what it shows; the page it exports stands alone.

The JavaScript decoder is checked against the Python Timeline under node when node is there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import traitlets

from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.widgets import TimelinePlayer, standalone_html
from tensortrace.widgets.player import PLAYER_JS

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def timeline() -> Timeline:
    return Timeline(Trace.load(DATA / "seed_000_trace.json"), checkpoint_every=32)


@pytest.fixture
def player(timeline: Timeline) -> TimelinePlayer:
    return TimelinePlayer(timeline)


def test_step_trait_drives_the_view(player: TimelinePlayer, timeline: Timeline) -> None:
    assert player.step == 0 and "_t1 = torch.rand(3, 4)  # <--- here" in player.view
    player.step = timeline.code[2].end  # after `del _t1`
    assert "del _t1  # <--- here" in player.view
    assert "TensorImpl#1 refcount=1" in player.view
    assert "view of TensorImpl#1" in player.view
    assert player.state_at().tensors[1].refcount == 1
    player.step = 98
    assert "incref TensorImpl#1 → refcount 2" in player.view
    assert "torch::ADInplaceOrView::select_int [autograd]" in player.view


def test_step_is_checked(player: TimelinePlayer) -> None:
    with pytest.raises(traitlets.TraitError):
        player.step = 10_000


def test_jump_buttons_from_python(player: TimelinePlayer, timeline: Timeline) -> None:
    assert player.next("free") == timeline.steps("free")[0]
    assert "- free 48 B" in player.view
    assert player.prev("alloc") == timeline.steps("alloc")[-1]
    player.step = 0
    assert player.prev("alloc") == 0  # nothing before: stays


def test_payload_is_plain_json(player: TimelinePlayer) -> None:
    text = json.dumps(player.payload)
    assert json.loads(text) == player.payload
    assert player.payload["format"] == "tensortrace-replay"


def test_standalone_html_is_self_contained(player: TimelinePlayer, tmp_path: Path) -> None:
    player.step = 112
    page = player.standalone_html()
    assert not re.search(
        r"https?:|//[a-z0-9.-]+\.[a-z]{2,}/|\bsrc\s*=|\bhref\s*=|@import|url\(", page, re.IGNORECASE
    )
    assert page.count("<script") == 2 and "standaloneModel" in page
    assert "Number(permalink[1]) : 112;" in page  # opens at the player's step, or at #step=N
    data = re.search(
        r'<script type="application/json" id="tt-payload">(.*?)</script>', page, re.DOTALL
    )
    assert data is not None
    assert json.loads(data.group(1).replace("<\\/", "</")) == player.payload
    out = player.to_html(tmp_path / "player.html")
    assert out.read_text(encoding="utf-8") == page
    assert "Number(permalink[1]) : 3;" in standalone_html(player.timeline, step=3)


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_javascript_replay_matches_python(timeline: Timeline, tmp_path: Path) -> None:
    (tmp_path / "player.mjs").write_text(PLAYER_JS)
    (tmp_path / "payload.json").write_text(json.dumps(timeline.payload()))
    steps = [0, 25, 98, 112, 240, 269, 290, len(timeline) - 1]
    (tmp_path / "check.mjs").write_text(
        'import { createReplay, objectGraphSvg, memoryMapSvg } from "./player.mjs";\n'
        'import { readFileSync } from "fs";\n'
        'const r = createReplay(JSON.parse(readFileSync(process.argv[2], "utf8")));\n'
        f"const steps = {json.dumps(steps)};\n"
        "console.log(JSON.stringify(steps.map((s) => ({tables: r.tablesAt(s),\n"
        "  stack: r.stackAt(s).map((f) => r.frameInfo(f).name), here: r.hereAt(s),\n"
        "  event: r.eventAt(s).text, next: r.next('free', s), prev: r.prev('alloc', s),\n"
        "  svg: objectGraphSvg(r, s).length > 0 && memoryMapSvg(r, s).length > 0}))));\n"
    )
    result = subprocess.run(
        [NODE, str(tmp_path / "check.mjs"), str(tmp_path / "payload.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for step, shown in zip(steps, json.loads(result.stdout)):
        expected = json.loads(json.dumps(timeline.tables_at(step)))
        assert shown["tables"] == expected, step
        assert shown["stack"] == [f.name for f in timeline.stack_at(step)]
        line = timeline.current_line(step)
        assert shown["here"] == (timeline.code.index(line) if line else -1)
        assert shown["event"].split("(")[0] == timeline.describe_event(step).split("(")[0]
        assert shown["next"] == timeline.next("free", step)
        assert shown["prev"] == timeline.prev("alloc", step)
        assert shown["svg"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_standalone_page_script_parses(player: TimelinePlayer, tmp_path: Path) -> None:
    page = player.standalone_html()
    script = page.split('<script type="module">\n', 1)[1].split("</script>", 1)[0]
    (tmp_path / "page.mjs").write_text(script)
    subprocess.run([NODE, "--check", str(tmp_path / "page.mjs")], check=True, timeout=60)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_engine_panel_shows_the_node_its_ready_queue_and_dependencies(tmp_path: Path) -> None:
    import tensortrace as torch

    a = torch.rand(3, requires_grad=True)
    b = torch.rand(3, requires_grad=True)
    with torch.record() as t:
        ((a + b) * a).sum().backward()
    timeline = Timeline(t)
    inside = (
        next(
            i
            for i, e in enumerate(t.events)
            if e.ph == "B" and e.name == "autograd::engine::evaluate_function: MulBackward0"
        )
        + 1
    )
    (tmp_path / "player.mjs").write_text(PLAYER_JS)
    (tmp_path / "payload.json").write_text(json.dumps(timeline.payload()))
    (tmp_path / "check.mjs").write_text(
        'import { createReplay, engineAt } from "./player.mjs";\n'
        'import { readFileSync } from "fs";\n'
        'const r = createReplay(JSON.parse(readFileSync(process.argv[2], "utf8")));\n'
        f"console.log(JSON.stringify([engineAt(r, {inside}), engineAt(r, 0)]));\n"
    )
    result = subprocess.run(
        [NODE, str(tmp_path / "check.mjs"), str(tmp_path / "payload.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    engine, before = json.loads(result.stdout)
    assert before is None
    assert engine["node"].startswith("MulBackward0")
    # Mul's gradient flows to Add (once) and to a's AccumulateGrad (which waits for Add's too)
    assert "AddBackward0, 1" in engine["dependencies"]
    assert engine["ready"] == "[]"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_values_panel_reads_what_decode_values_reads(
    timeline: Timeline, tmp_path: Path
) -> None:
    from tensortrace.replay.payload import decode_values

    payload = timeline.payload()
    cases = [
        [step, key, row["storage"]]
        for step in (45, 60, 120, 250, len(timeline) - 1)
        for key, row in timeline.tables_at(step)["t"].items()
    ]
    assert cases
    (tmp_path / "player.mjs").write_text(PLAYER_JS)
    (tmp_path / "payload.json").write_text(json.dumps(payload))
    (tmp_path / "check.mjs").write_text(
        'import { createReplay, reachedBins, reachedElements, valuesHtml } from "./player.mjs";\n'
        'import { readFileSync } from "fs";\n'
        'const r = createReplay(JSON.parse(readFileSync(process.argv[2], "utf8")));\n'
        f"const cases = {json.dumps(cases)};\n"
        "const out = cases.map(([s, k, st]) => [r.valuesAt(k, st, s),\n"
        "  valuesHtml(r, s, r.tablesAt(s), k).includes('tt-strip')]);\n"
        "const view = reachedElements([2, 3], [5, 2], 3);\n"
        "const bins = (b) => b.bins.flatMap((hit, i) => (hit ? [i] : []));\n"
        "console.log(JSON.stringify({out, reached: [...view.reached.keys()],\n"
        "  head: bins(reachedBins([10], [1], 0, 960)),\n"
        "  tail: bins(reachedBins([2], [1], 958, 960)),\n"
        "  column: bins(reachedBins([96], [10], 5, 960))}));\n"
    )
    result = subprocess.run(
        [NODE, str(tmp_path / "check.mjs"), str(tmp_path / "payload.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    shown = json.loads(result.stdout)
    for (step, key, _), (js, has_strip) in zip(cases, shown["out"]):
        py = decode_values(payload, step, key)
        assert (js["text"], js["textStep"], js["elements"]) == (
            py["text"],
            py["text_step"],
            py["elements"],
        )
        assert has_strip == (py["elements"] is not None)
    # seed 003's x = set_(storage, offset 3, size (2, 3), stride (5, 2)): 3 5 7 / 8 10 12
    assert shown["reached"] == [3, 5, 7, 8, 10, 12]
    # a storage too large to list: 96 bins of 10 elements each for 960
    assert shown["head"] == [0] and shown["tail"] == [95]
    assert shown["column"] == list(range(96))
