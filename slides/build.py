"""Build the talk's slide deck: seed 000's timeline replayed, as ONE self-contained HTML file.

    python slides/build.py            # -> slides/dist/index.html
    python slides/build.py --out x.html

The deck runs `r = torch.rand(3, 4)[0] + torch.rand(3, 4)` under a trace and turns the replay
into slides: the equivalent code (derived from the trace, never written by hand), one slide per
line of it with the line marked `# <--- here`, the operators it called and the object graph
after it; call-outs for the `del` that frees nothing and the `del` whose view frees the first
storage; the allocator's memory map; the TimelinePlayer's standalone page, stepping inside
the deck; seed 004's autograd story (the graph `a + b` records, backward() walking it, one
training step of a small network), drawn from traces too; and the same expression on the
emulated CUDA device, with the caching allocator's story (notebook 08): rounding and splitting,
`del` that keeps memory reserved, fragmentation, the release-and-retry before an out-of-memory
error. reveal.js (from the npm registry, pinned in package.json / package-lock.json) is inlined
at build time, with its theme's fonts already embedded as data URLs, so the built file needs no
network and no kernel when it is shown: open it in any browser, offline.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "dist" / "index.html"
SEED_SOURCE = "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"
REVEAL = Path("node_modules") / "reveal.js" / "dist"


# ---- reveal.js --------------------------------------------------------------------------------
def reveal_dist(slides_dir: Path = HERE) -> Path:
    """reveal.js's dist folder, installed from the lock file with `npm ci` when missing."""
    dist = slides_dir / REVEAL
    if not (dist / "reveal.js").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(
                "reveal.js is not installed and npm is not on PATH: "
                "run `npm ci` in slides/ (see package.json)"
            )
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=slides_dir,
            check=True,
            timeout=300,
        )
    return dist


def _inline_script(code: str) -> str:
    # a literal "</script" inside inlined JavaScript would end the element early
    return "<script>" + code.replace("</script", "<\\/script") + "</script>"


def _inline_style(css: str) -> str:
    return "<style>" + css.replace("</style", "<\\/style") + "</style>"


# ---- the trace and what the slides say about it --------------------------------------------
def record_seed() -> Any:
    """Run seed 000's expression under a trace; the namespace outlives it, so `r` survives."""
    import tensortrace as torch
    from tensortrace.trace import run_source

    namespace: dict[str, Any] = {"torch": torch}
    with torch.record(source=SEED_SOURCE) as trace:
        run_source(SEED_SOURCE, namespace)
    trace.meta["survivors"] = sorted(k for k in namespace if k != "torch")
    return trace


@dataclass
class LineFacts:
    text: str
    start: int
    end: int
    kind: str
    operators: list[str]
    allocs: list[tuple[int, str]]  # bytes, owner
    frees: list[tuple[int, str]]
    callout: str = ""


def line_facts(timeline: Any) -> list[LineFacts]:
    """What each line of the equivalent code did, read from the events it covers."""
    from tensortrace.viz import blocks_of, state_from_timeline

    trace = timeline.trace
    events = trace.events
    blocks = blocks_of(timeline)
    owner_at_alloc = {b.start: b for b in blocks}
    owner_at_free = {b.end: b for b in blocks if b.end is not None}
    out: list[LineFacts] = []
    for line in timeline.code:
        ops = [
            e.name
            for e in events[line.start : line.end + 1]
            if e.ph == "B" and e.name.startswith("aten::")
        ]
        allocs = [
            (owner_at_alloc[i].nbytes, owner_at_alloc[i].owner)
            for i in range(line.start, line.end + 1)
            if i in owner_at_alloc
        ]
        frees = [
            (owner_at_free[i].nbytes, owner_at_free[i].owner)
            for i in range(line.start, line.end + 1)
            if i in owner_at_free
        ]
        out.append(LineFacts(line.text, line.start, line.end, line.kind, ops, allocs, frees))

    for facts in out:
        if facts.kind != "del":
            continue
        name = facts.text.removeprefix("del ").strip()
        after = state_from_timeline(timeline, facts.end)
        deaths = [e for e in events[facts.start : facts.end + 1] if e.kind == "handle_del"]
        impl = timeline.rename(deaths[0].args["impl"]) if deaths else ""
        if not facts.frees:
            holders = [i.name for i in after.impls.values() if i.base == impl]
            held_by = [h.name for h in after.handles.values() if h.impl in holders]
            still = after.impls.get(impl)
            if still is not None:
                who = (
                    f"the view {', '.join(held_by)} ({', '.join(holders)}) still holds it"
                    if holders
                    else "another owner still holds it"
                )
                facts.callout = (
                    f"<code>del {name}</code> frees nothing: {impl} drops to "
                    f"refcount {still.refcount}, because {who}; "
                    f"{still.storage} keeps its memory."
                )
        else:
            parts = []
            for nbytes, owner in facts.frees:
                first = next((f for f in out if (nbytes, owner) in f.allocs), None)
                origin = f", allocated by <code>{html.escape(first.text)}</code>" if first else ""
                parts.append(f"{nbytes} bytes of {owner}{origin}")
            gone = state_from_timeline(timeline, facts.start - 1).impls.get(impl)
            why = (
                f"{name} was a view: its death released its base and the shared storage"
                if gone is not None and gone.is_view
                else f"{name} was the last owner"
            )
            facts.callout = f"<code>del {name}</code> frees {'; '.join(parts)}. {why}."
    return out


# ---- slides ---------------------------------------------------------------------------------
def _code_block(lines: list[LineFacts], current: int | None) -> str:
    rows = []
    for i, line in enumerate(lines):
        text = html.escape(line.text)
        if i == current:
            rows.append(f'<mark class="here">{text}  # &lt;--- here</mark>')
        else:
            rows.append(text)
    return '<pre class="code"><code>' + "\n".join(rows) + "</code></pre>"


def _player_slide(trace: Any) -> str:
    try:
        from tensortrace.widgets import TimelinePlayer
    except ImportError as exc:  # the widget package is optional at build time
        print(f"warning: no TimelinePlayer ({exc}); the deck has no player slide", file=sys.stderr)
        return ""
    # presentation mode: bigger type, fewer panels; deck=True: the presenter's keys (PageDown,
    # PageUp, Space, Esc, arrows with a modifier) go up to reveal.js even after a click inside
    page = TimelinePlayer(trace, presentation=True).standalone_html(deck=True)
    return (
        '<section data-state="player"><h3>Step through it yourself</h3>'
        '<iframe class="player" title="TimelinePlayer" sandbox="allow-scripts" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
        '<p class="small">The TimelinePlayer, standalone: no kernel needed. Click it, step '
        "with ← →; PageDown still moves the deck.</p></section>"
    )


def build_sections(trace: Any) -> str:
    from tensortrace.replay.timeline import Timeline
    from tensortrace.viz import memory_map, object_graph

    timeline = Timeline(trace)
    facts = line_facts(timeline)
    sections = [
        "<section><h2>A tensor's timeline</h2>"
        f'<pre class="code big"><code>import torch\n{html.escape(SEED_SOURCE)}</code></pre>'
        "<p>Every step recorded: Python binding → dispatcher → native → kernel → allocator → "
        "refcount, replayed by <em>tensortrace</em>.</p></section>",
        "<section><h3>The code is equivalent to</h3>"
        + _code_block(facts, None)
        + f'<p class="small">derived from the {len(trace.events)} events of the trace; '
        "only <code>r</code> remains at the end.</p></section>",
    ]
    for i, line in enumerate(facts):
        graph = object_graph(timeline, line.end).to_svg()
        ops = ", ".join(html.escape(o) for o in line.operators) or "no operator call"
        memory = []
        memory += [f"alloc {n} B → {o}" for n, o in line.allocs]
        memory += [f"free {n} B ← {o}" for n, o in line.frees]
        callout = f'<p class="callout">{line.callout}</p>' if line.callout else ""
        sections.append(
            f'<section data-line="{i}" data-steps="{line.start}-{line.end}">'
            f'<h3 class="line">{html.escape(line.text)}</h3>'
            '<div class="columns"><div class="left">'
            + _code_block(facts, i)
            + f'<p class="small"><b>operators</b>: {ops}</p>'
            + f'<p class="small"><b>memory</b>: {", ".join(memory) or "none"}</p>'
            + f'<p class="small">events {line.start}…{line.end}</p>'
            + callout
            + '</div><div class="right figure">'
            + graph
            + "</div></div>"
            + _notes(
                f"{line.text}: events {line.start} to {line.end}. Operators: "
                f"{', '.join(line.operators) or 'none'}. Memory: "
                f"{', '.join(memory) or 'nothing allocated or freed'}. "
                + (
                    re.sub("<[^>]+>", "", line.callout or "")
                    or "Point at the graph: which refcounts moved?"
                ),
                escaped=False,
            )
            + "</section>"
        )
    sections.append(
        '<section><h3>The allocator over time</h3><div class="figure">'
        + memory_map(timeline).to_svg()
        + "</div></section>"
    )
    sections.append(_player_slide(trace))
    sections.append(
        "<section><h3>Only <code>r</code> remains</h3>"
        + '<div class="figure">'
        + object_graph(timeline).to_svg()
        + "</div>"
        + f'<p class="small">{html.escape(timeline.headline())}</p></section>'
    )
    sections.extend(build_autograd_sections())
    sections.append(cuda_sections())
    return "\n".join(s for s in sections if s)


AUTOGRAD_SOURCE = "c = a + b\nloss = (c * a).sum()\nloss.backward()"


def build_autograd_sections() -> list[str]:
    """Seed 004's story: `a + b` records AddBackward0, backward() walks the graph, .grad
    accumulates; then one training step of a two-layer network, as the trace recorded it."""
    import tensortrace as torch
    from tensortrace.viz import autograd_graph

    torch.manual_seed(0)
    a = torch.rand(3, requires_grad=True)
    b = torch.rand(3, requires_grad=True)
    with torch.record() as trace:
        c = a + b
        loss = (c * a).sum()
        loss.backward()
    evaluate = "autograd::engine::evaluate_function: "
    begins = [i for i, e in enumerate(trace.events) if e.ph == "B" and e.name.startswith(evaluate)]
    first_backward = begins[0]
    waits = []
    for i in begins:
        args = trace.events[i].args["args"]
        waits.append(
            f"{html.escape(trace.events[i].name[len(evaluate) :])}: waiting "
            f"{html.escape(str(args['dependencies']))}"
        )
    code = f'<pre class="code big"><code>{html.escape(AUTOGRAD_SOURCE)}</code></pre>'
    sections = [
        "<section><h2>Autograd, traced</h2>"
        + code
        + "<p>Seed 004: every op on a tensor that requires grad records a grad function holding "
        "its inputs' edges; <code>backward()</code> walks them; the leaves' gradients "
        "accumulate into <code>.grad</code>. PyTorch 2.x: Node, Edge, the engine's GraphTask, "
        "AccumulateGrad.</p></section>",
        '<section data-state="autograd-graph"><h3><code>a + b</code> records '
        '<code>AddBackward0</code></h3><div class="columns"><div class="left">'
        + code
        + '<p class="small">The graph after the forward pass: each Node, what it saved, and its '
        "next_edges down to the leaves' AccumulateGrad (drawn from the trace's grad_fn facts)."
        '</p></div><div class="right figure">'
        + autograd_graph(trace, first_backward - 1).to_svg()
        + "</div></div></section>",
        '<section data-state="backward"><h3><code>backward()</code> walks the graph</h3>'
        '<div class="columns"><div class="left">'
        + "".join(f'<p class="small">{w}</p>' for w in waits)
        + f'<p class="small">a.grad = {html.escape(str(a.grad))}</p>'
        '<p class="callout">a is used twice: its AccumulateGrad runs only when both gradients '
        "(through Mul and through Add) have arrived, as seed 004's <code>needed</code> counts."
        '</p></div><div class="right figure">'
        + autograd_graph(trace).to_svg()
        + "</div></div></section>",
    ]
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(16, 2)
    y = (x.sum(1) > 0).to(torch.int64)
    with torch.record() as step:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    ops = [name for name, _ in step.operator_tree()]
    nodes = [
        e.name[len(evaluate) :] for e in step.events if e.ph == "B" and e.name.startswith(evaluate)
    ]
    sections.append(
        '<section data-state="training-step"><h3>One training step</h3>'
        '<div class="columns"><div class="left"><pre class="code"><code>'
        + html.escape(
            "opt.zero_grad()\nloss = F.cross_entropy(model(x), y)\nloss.backward()\nopt.step()"
        )
        + "</code></pre>"
        + f'<p class="small"><b>top-level operators</b>: {html.escape(", ".join(ops))}</p>'
        + f'<p class="small"><b>backward, node by node</b>: {html.escape(" → ".join(nodes))}</p>'
        + '<p class="small">The same tree as torch.profiler records for this step '
        "(tests/conformance/test_nn_trees.py).</p></div>"
        '<div class="right figure">' + autograd_graph(step).to_svg() + "</div></div></section>"
    )
    return sections


# ---- the same expression on the emulated CUDA device: the caching allocator --------------------
CUDA_SOURCE = "r = torch.rand(3, 4, device='cuda')[0] + torch.rand(3, 4, device='cuda')"
MIB = 2**20


def _usage(torch: Any, label: str) -> tuple[str, str, str, int]:
    return (
        label,
        f"{torch.cuda.memory_allocated() / MIB:.1f} MiB",
        f"{torch.cuda.memory_reserved() / MIB:.1f} MiB",
        torch.cuda.memory_stats()["segment.all.current"],
    )


def _table(rows: list[tuple[Any, ...]], header: tuple[str, ...]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="small"><tr>{head}</tr>{body}</table>'


def record_cuda_story() -> dict[str, Any]:
    """Run notebook 08's story on the emulated device and keep what the slides show."""
    import gc

    import tensortrace as torch
    from tensortrace.c10.cuda.cuda_caching_allocator import set_device_capacity
    from tensortrace.trace import run_source

    gc.collect()
    torch.cuda.empty_cache()
    story: dict[str, Any] = {}
    namespace: dict[str, Any] = {"torch": torch}
    with torch.record(source=CUDA_SOURCE) as trace:
        run_source(CUDA_SOURCE, namespace)
    story["trace"] = trace
    events = []
    segment = 0
    for e in trace.memory_events():
        a = e.args
        if e.kind == "alloc":
            segment = a["segment"]
            how = "from the cache" if a["from_cache"] else "new 2 MiB segment (cudaMalloc)"
            events.append(
                (
                    f"alloc {a['requested']} B",
                    f"{a['bytes']} B",
                    f"segment+{a['addr'] - segment:#05x}",
                    how,
                )
            )
        else:
            events.append(
                (
                    f"free {a['bytes']} B",
                    "",
                    f"segment+{a['addr'] - segment:#05x}",
                    "back to the small pool",
                )
            )
    story["seed"] = events
    namespace.clear()
    gc.collect()
    torch.cuda.empty_cache()  # the table starts from an empty device
    rows = []
    x = torch.empty(25 * MIB, device="cuda")
    rows.append(_usage(torch, "x = torch.empty(100 MiB)"))
    del x
    rows.append(_usage(torch, "del x"))
    y = torch.empty(25 * MIB, device="cuda")
    rows.append(_usage(torch, "y = torch.empty(100 MiB)"))
    del y
    torch.cuda.empty_cache()
    rows.append(_usage(torch, "del y; empty_cache()"))
    blocks = [torch.empty(MIB, device="cuda") for _ in range(20)]
    rows.append(_usage(torch, "20 x 4 MiB"))
    del blocks[1::2]
    rows.append(_usage(torch, "every other one freed"))
    big = torch.empty(2 * MIB, device="cuda")
    rows.append(_usage(torch, "one 8 MiB request"))
    torch.cuda.empty_cache()
    rows.append(_usage(torch, "empty_cache()"))
    del blocks, big
    torch.cuda.empty_cache()
    rows.append(_usage(torch, "all freed, empty_cache()"))
    story["usage"] = rows
    set_device_capacity(64 * MIB)
    try:
        a = torch.empty(10 * MIB, device="cuda")
        del a
        b = torch.empty(12 * MIB, device="cuda")
        story["retries"] = torch.cuda.memory_stats()["num_alloc_retries"]
        try:
            torch.empty(5 * MIB, device="cuda")
        except torch.cuda.OutOfMemoryError as error:
            # the first sentences; the rest points at the online docs
            story["oom"] = str(error).split(" If reserved")[0]
        del b
    finally:
        torch.cuda.empty_cache()
        set_device_capacity(1024 * MIB)
    return story


def cuda_sections() -> str:
    from tensortrace.viz import memory_map

    story = record_cuda_story()
    return "\n".join(
        [
            "<section><h2>On <code>cuda</code>: the caching allocator</h2>"
            f'<pre class="code big"><code>{html.escape(CUDA_SOURCE)}</code></pre>'
            "<p class=\"small\">tensortrace's emulated CUDA device: host memory, the CPU's loops, "
            "PyTorch's CUDA path and its CUDACachingAllocator, traced.</p>"
            + _table(story["seed"], ("request", "block", "where", "served"))
            + '<p class="callout">48 bytes are rounded up to 512; the first request costs a 2 MiB '
            "segment, split; the next two are carved from it; frees go back to the pool, and "
            "<code>memory_reserved()</code> stays at 2 MiB.</p></section>",
            '<section><h3>The segment and its blocks</h3><div class="figure">'
            + memory_map(story["trace"]).to_svg()
            + "</div></section>",
            "<section><h3>Why memory does not go down after <code>del</code></h3>"
            + _table(story["usage"], ("step", "allocated", "reserved", "segments"))
            + '<p class="callout">A freed block is cached for the next request of its size; '
            "4 MiB holes between live tensors cannot serve 8 MiB (fragmentation), and "
            "<code>empty_cache()</code> only returns segments that are entirely free.</p>"
            "</section>",
            "<section><h3>Out of memory: release, retry, then fail</h3>"
            f'<p class="small">On a 64 MiB device: 40 MiB cached, then 48 MiB asked: cudaMalloc '
            f"fails, the cache is released and the request retried "
            f"(<code>num_alloc_retries</code> = {story['retries']}). "
            "20 MiB more cannot be found:</p>"
            f'<pre class="code"><code>{html.escape(story["oom"])}</code></pre></section>',
        ]
    )


DECK_CSS = """
.reveal h2, .reveal h3 { text-transform: none; }
.reveal h3.line { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 1.1em; }
.reveal pre.code { width: 100%; box-shadow: none; font-size: 0.5em; }
.reveal pre.code.big { font-size: 0.8em; }
.reveal pre.code code { max-height: none; padding: 0.6em; background: #f6f8fa; color: #222; }
.reveal mark.here { background: #ffe2b8; color: #222; }
.reveal .columns { display: flex; gap: 1.2em; align-items: flex-start; text-align: left; }
.reveal .columns .left { flex: 0 0 32%; }
.reveal .columns .right { flex: 1 1 auto; }
.reveal .figure svg { max-width: 100%; height: auto; background: #fff; }
.reveal p.small { font-size: 0.45em; text-align: left; margin: 0.3em 0; }
.reveal p.callout { font-size: 0.5em; text-align: left; border-left: 6px solid #ff8c00;
  padding: 0.4em 0.6em; background: #fff4e6; }
.reveal table.small { font-size: 0.42em; margin: 0.4em 0; }
.reveal iframe.player { width: 100%; height: 610px; border: 1px solid #ccc; background: #fff; }
"""


# `deck.html#step=N` opens the player's slide at step N, as an exported player page does; read
# before reveal.js starts, since reveal.js (hash: true) rewrites the fragment to `#/slide`.
PERMALINK = """
window.ttDeckStep = (/(?:^#|&)step=(\\d+)/.exec(location.hash) || [])[1];
"""

# The player's iframe hands the presenter's keys up (postMessage); reveal.js acts on them here.
# It also says when it is ready (the deck answers with the permalink's step) and each step it
# shows (the deck keeps `#step=N` in its URL while the player's slide is on screen).
PRESENTER_KEYS = """
const playerSlide = () => document.querySelector('.slides > section[data-state="player"]');
Reveal.on('ready', () => {
  if (window.ttDeckStep !== undefined && playerSlide()) Reveal.slide(
    [...document.querySelectorAll('.slides > section')].indexOf(playerSlide()));
});
window.addEventListener('message', (event) => {
  const key = event.data;
  const fromPlayer = [...document.querySelectorAll('iframe.player')]
    .some((frame) => frame.contentWindow === event.source);
  if (!fromPlayer || !key) return;
  if (key.type === 'tensortrace-ready' && window.ttDeckStep !== undefined) {
    event.source.postMessage({ type: 'tensortrace-goto', step: Number(window.ttDeckStep) }, '*');
    return;
  }
  if (key.type === 'tensortrace-step') {
    if (Reveal.getCurrentSlide() === playerSlide() && key.step > 0) {
      try { history.replaceState(null, '', '#step=' + key.step); } catch (e) { /* sandbox */ }
    }
    return;
  }
  if (key.type !== 'tensortrace-key') return;
  if (['PageDown', ' ', 'ArrowRight', 'ArrowDown'].includes(key.key)) Reveal.next();
  else if (['PageUp', 'ArrowLeft', 'ArrowUp'].includes(key.key)) Reveal.prev();
  else if (key.key === 'Escape') Reveal.toggleOverview();
});
// a player that was ready before this listener existed gets the permalink's step now
if (window.ttDeckStep !== undefined) {
  document.querySelectorAll('iframe.player').forEach((frame) => frame.contentWindow.postMessage(
    { type: 'tensortrace-goto', step: Number(window.ttDeckStep) }, '*'));
}
"""


# Speaker notes (reveal.js's `S` key opens the speaker view) for the slides that are not one line
# of the code; each line slide's notes are derived from its facts in build_sections.
SPEAKER_NOTES = {
    "A tensor's timeline": "One line of PyTorch. Ask the room: how many tensors, how many "
    "allocations, and when is each freed? Every answer in this talk comes from a recorded trace.",
    "The code is equivalent to": "Python runs the line as calls and deaths: each binding call "
    "that returns a tensor is a _tN, each handle that dies is a del. This view is derived from "
    "the trace, not written by hand.",
    "The allocator over time": "Three 48-byte blocks, 64-byte aligned. The first lives until the "
    "view dies, not until its own handle does; the third is r, alive at the end.",
    "Step through it yourself": "Click the player and step with the arrows: code, call stack, "
    "objects and memory follow. PageDown still moves the deck.",
    "Only <code>r</code> remains": "At the end only r and its storage are alive: every other "
    "object reached refcount 0 and released what it held (seed 002's golden rule).",
    "Autograd, traced": "Seed 004: every op on a tensor that requires grad records a Node with "
    "edges to its inputs' Nodes; backward() walks them.",
    "<code>a + b</code> records <code>AddBackward0</code>": "After the forward pass: the Nodes, "
    "what each saved, and the edges down to the leaves' AccumulateGrad.",
    "<code>backward()</code> walks the graph": "The engine counts dependencies first; a Node runs "
    "when all its gradients have arrived. a is used twice, so its AccumulateGrad waits for both.",
    "One training step": "zero_grad, forward, loss, backward, step: the same operator tree "
    "torch.profiler records for this step, node by node.",
    "On <code>cuda</code>: the caching allocator": "The same line on the emulated GPU: 48 bytes "
    "round up to 512, the first request costs a 2 MiB segment, the next two are carved from it.",
    "The segment and its blocks": "Allocated, cached and split blocks of the segment, step by "
    "step: a free goes back to the pool, not to the device.",
    "Why memory does not go down after <code>del</code>": "memory_allocated drops, "
    "memory_reserved does not: the block is cached for the next request of its size. "
    "Fragmentation: holes that cannot serve a larger request. empty_cache returns whole "
    "segments only.",
    "Out of memory: release, retry, then fail": "When cudaMalloc fails the allocator frees its "
    "cached segments and retries once (num_alloc_retries); only then the OutOfMemoryError.",
}


def _notes(text: str, escaped: bool = True) -> str:
    return f'<aside class="notes">{text if escaped else html.escape(text)}</aside>'


def with_speaker_notes(sections: str) -> str:
    """Each slide titled in SPEAKER_NOTES gets its notes, just before its closing tag."""

    def add(match: re.Match[str]) -> str:
        body = match.group(0)
        title = re.search(r"<h[23][^>]*>(.*?)</h[23]>", body)
        if '<aside class="notes">' in body or not title or title.group(1) not in SPEAKER_NOTES:
            return body
        return body[: -len("</section>")] + _notes(SPEAKER_NOTES[title.group(1)]) + "</section>"

    return re.sub(r"<section[ >].*?</section>", add, sections, flags=re.DOTALL)


def build(out: Path = DEFAULT_OUT, slides_dir: Path = HERE) -> Path:
    """Write the deck to `out` and return its path."""
    dist = reveal_dist(slides_dir)
    trace = record_seed()
    sections = with_speaker_notes(build_sections(trace))
    page = "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>tensortrace: a tensor's timeline</title>",
            _inline_style((dist / "reveal.css").read_text()),
            _inline_style((dist / "theme" / "white.css").read_text()),
            _inline_style(DECK_CSS),
            '</head><body><div class="reveal"><div class="slides">',
            sections,
            "</div></div>",
            _inline_script((dist / "reveal.js").read_text()),
            _inline_script((dist / "plugin" / "notes.js").read_text()),  # `S`: the speaker view
            _inline_script(PERMALINK),
            _inline_script(
                "Reveal.initialize({hash: true, controls: true, progress: true, "
                "slideNumber: 'c/t', width: 1280, height: 760, margin: 0.04, "
                "transition: 'none', plugins: [RevealNotes]});"
            ),
            _inline_script(PRESENTER_KEYS),
            "</body></html>",
        ]
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page)
    return out


EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def external_references(page: str) -> list[str]:
    """src/href attributes and CSS url()/@import that would reach the network.

    The page is also read unescaped, so the player page inside the iframe's srcdoc is checked too.
    """
    found: list[str] = []
    for text in (page, html.unescape(page)):
        found += [m.group(0) for m in EXTERNAL.finditer(text)]
        found += re.findall(r"url\(\s*['\"]?\s*(?:https?:)?//[^)]*\)", text, re.IGNORECASE)
        found += re.findall(r"@import\s+['\"]?(?:https?:)?//[^;]*;", text, re.IGNORECASE)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="build", choices=["build"])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    out = build(args.out)
    problems = external_references(out.read_text())
    if problems:
        print(f"error: {out} references the network: {problems[:3]}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
