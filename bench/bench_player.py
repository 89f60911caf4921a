"""The TimelinePlayer in Chromium: first render and per-step time, for the seed and a big trace.

    python bench/bench_player.py [--events 100000] [--steps 200]

Exports each trace as a standalone page, opens it in Debian's Chromium (Playwright with
executable_path=/usr/bin/chromium), and prints, from one run: the time from navigation to the
player's first drawn step, and the median and worst time of one step (a slider move: every panel
redrawn) over random steps. Goals: first render under 1 s and a step under 16 ms (one frame) for
100k events. Needs the playwright package and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_timeline import SEED, record

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import run_source
from tensortrace.widgets import standalone_html

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

STEP_TIMES = """([steps]) => {
    const slider = document.querySelector('.tt-slider');
    const times = [];
    for (const s of steps) {
        const t0 = performance.now();
        slider.value = String(s);
        slider.dispatchEvent(new Event('input'));
        document.querySelector('.tt-player').getBoundingClientRect();  // force layout
        times.push(performance.now() - t0);
    }
    return times;
}"""


def measure(browser: object, page_file: Path, n: int, steps: int) -> tuple[float, list[float]]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    start = time.perf_counter()
    page.goto(page_file.as_uri())
    page.wait_for_selector(".tt-player[data-step]")
    first = time.perf_counter() - start
    rng = random.Random(0)
    chosen = [rng.randrange(n) for _ in range(steps)]
    times = page.evaluate(STEP_TIMES, [chosen])
    page.close()
    return first, times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed: pip install playwright")
        return 1
    if not CHROMIUM.exists():
        print("Debian's chromium is not installed (apt-get install chromium)")
        return 1
    with torch.record() as seed:
        run_source(SEED, {"torch": torch})
    traces = {"seed": seed, f"{args.events // 1000}k events": record(args.events)}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        print(
            f"{'trace':>12} {'events':>8} {'page':>9} {'first render':>13} "
            f"{'step median':>12} {'step worst':>11}"
        )
        for name, trace in traces.items():
            timeline = Timeline(trace)
            page_file = Path(tmp) / "player.html"
            page_file.write_text(standalone_html(timeline), encoding="utf-8")
            first, times = measure(browser, page_file, len(timeline), args.steps)
            print(
                f"{name:>12} {len(timeline):>8} {page_file.stat().st_size / 1e6:>7.1f}MB "
                f"{first * 1000:>11.0f}ms {statistics.median(times):>10.1f}ms "
                f"{max(times):>9.1f}ms"
            )
        browser.close()
    print("goals: first render < 1000 ms and a step < 16 ms at 100k events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
