"""The `tensortrace` command: trace an expression and print its call-stack tree.

    tensortrace                                 # the seed: r = torch.rand(3, 4)[0] + ...
    tensortrace "x = rand(2, 3); y = x[0] + 1"  # any statements; `torch` is tensortrace
    tensortrace --layers python,dispatch --chrome trace.json

Names resolve in the tensortrace namespace (`rand`, `add`, `float64` ...) and `torch` is bound to
it, so PyTorch code runs as written. A bad expression prints one line, not a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from rich.console import Console

import tensortrace
from tensortrace.replay import Timeline
from tensortrace.replay.tree import render_tree
from tensortrace.trace import run_source

SEED_EXPRESSION = "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"
# From this width on, a frame's PyTorch file, symbol and 2019 name fit beside it on one line;
# narrower terminals get them only with --pytorch (and every frame line is cropped, not wrapped).
WIDE_COLUMNS = 160


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensortrace",
        description="Trace a PyTorch-style expression through tensortrace's binding, "
        "dispatcher, kernels, allocator and refcounts, and print the call stack.",
    )
    parser.add_argument(
        "source",
        nargs="?",
        default=SEED_EXPRESSION,
        help=f"statements to trace (default: the seed, {SEED_EXPRESSION!r})",
    )
    parser.add_argument(
        "--layers",
        default=None,
        help="comma-separated layers to show: python, dispatch, autograd, "
        "native, kernel, allocator, refcount (default: all)",
    )
    parser.add_argument(
        "--chrome",
        metavar="PATH",
        help="also write a Chrome Trace Event file (chrome://tracing, Perfetto)",
    )
    parser.add_argument("--json", metavar="PATH", help="also save the trace as JSON")
    pytorch = parser.add_mutually_exclusive_group()
    pytorch.add_argument(
        "--pytorch",
        dest="pytorch",
        action="store_true",
        default=None,
        help="show each frame's PyTorch source file, symbol and 2019 name "
        f"(the default from {WIDE_COLUMNS} columns on)",
    )
    pytorch.add_argument(
        "--no-pytorch",
        dest="pytorch",
        action="store_false",
        help="hide each frame's PyTorch source file and symbol",
    )
    parser.add_argument(
        "--no-instants", action="store_true", help="hide allocations, frees and refcount changes"
    )
    parser.add_argument(
        "--code",
        action="store_true",
        help="also print the equivalent code derived from the trace "
        "(_t1 = torch.rand(3, 4); del _t1 ...), as in seed 000",
    )
    parser.add_argument("--width", type=int, default=None, help="output width in columns")
    return parser


def trace_source(source: str) -> Any:
    """Run `source` in the tensortrace namespace under a trace; return (trace, namespace)."""
    namespace: dict[str, Any] = {
        k: v for k, v in vars(tensortrace).items() if not k.startswith("_")
    }
    namespace["torch"] = tensortrace
    with tensortrace.record(source=source) as t:
        run_source(source, namespace)
    return t, namespace


def summary_line(trace: Any) -> str:
    allocs = trace.instants("alloc")
    frees = trace.instants("free")
    ops = sum(1 for f in trace.frames() if f.name.startswith("aten::"))
    live = allocs[-1].args["total_allocated"] if allocs else 0
    if frees and (not allocs or trace.events.index(frees[-1]) > trace.events.index(allocs[-1])):
        live = frees[-1].args["total_allocated"]
    return (
        f"{len(trace.events)} events, {ops} operator calls, "
        f"{len(allocs)} allocations ({sum(a.args['bytes'] for a in allocs)} B), "
        f"{len(frees)} frees ({sum(f.args['bytes'] for f in frees)} B), "
        f"{live} B still allocated by this trace's survivors"
    )


MIN_WIDTH = 20


def fail(message: str) -> int:
    """Print one plain line on stderr (never parsed as rich markup) and return exit status 1."""
    first = message.splitlines()[0] if message else ""
    print(f"tensortrace: {first}", file=sys.stderr)
    return 1


def echo_value(source: str, namespace: dict[str, Any]) -> str | None:
    """What Python's REPL would echo after `source`: the last bare expression's repr."""
    import ast

    body = ast.parse(source).body
    if body and isinstance(body[-1], ast.Expr) and namespace.get("_") is not None:
        return repr(namespace["_"])
    return None


# Note [Ctrl-C stops at once]: the interrupt is a KeyboardInterrupt raised wherever the main
# thread happens to be. Python drops what a __del__ or a weakref callback raises, so the
# runtime's __del__s re-deliver it (interrupt_main); should it still land somewhere that drops
# it, a watchdog armed by the first Ctrl-C ends the process GRACE_SECONDS later all the same.
GRACE_SECONDS = 2.0
_interrupt_reported = threading.Event()


def _report_interrupt() -> int:
    if not _interrupt_reported.is_set():
        _interrupt_reported.set()
        print("tensortrace: interrupted", file=sys.stderr, flush=True)
    return 130


def _watchdog() -> None:
    _report_interrupt()
    os._exit(130)


def _on_sigint(signum: int, frame: Any) -> None:
    timer = threading.Timer(GRACE_SECONDS, _watchdog)
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # one Ctrl-C is enough
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; Ctrl-C stops it at once with "interrupted" and exit status 130."""
    previous = signal.getsignal(signal.SIGINT)
    # only where Python's own handler is in place: a caller that ignores SIGINT keeps it so
    ours = (
        previous is signal.default_int_handler
        and threading.current_thread() is threading.main_thread()
    )
    if ours:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        return run(argv)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return _report_interrupt()
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.width is not None and args.width < MIN_WIDTH:
        parser.exit(
            2,
            f"{parser.prog}: error: argument --width: must be at least {MIN_WIDTH}, "
            f"got {args.width}\n",
        )
    console = Console(width=args.width, highlight=False)
    layers = None
    if args.layers:
        layers = [layer.strip() for layer in args.layers.split(",") if layer.strip()]

    try:
        trace, namespace = trace_source(args.source)
    except SyntaxError as exc:
        return fail(f"syntax error: {exc.msg} (line {exc.lineno})")
    except Exception as exc:
        return fail(f"{type(exc).__name__}: {exc}")
    try:
        show_pytorch = args.pytorch if args.pytorch is not None else console.width >= WIDE_COLUMNS
        tree = render_tree(
            trace,
            layers=layers,
            show_pytorch=show_pytorch,
            show_instants=not args.no_instants,
            title=args.source,
        )
    except ValueError as exc:
        fail(str(exc))
        return 2
    console.print(tree)
    if args.code:
        console.print("\nequivalent code:", style="bold")
        console.print(Timeline(trace).code_view(), markup=False)
    echoed = echo_value(args.source, namespace)
    if echoed is not None:
        console.print(echoed, markup=False)
    console.print(summary_line(trace), style="dim", markup=False)
    for path, write, done in (
        (args.chrome, trace.export_chrome_trace, "Chrome trace written to"),
        (args.json, trace.save, "trace saved to"),
    ):
        if not path:
            continue
        try:
            write(path)
        except OSError as exc:
            return fail(f"cannot write {path}: {exc.strerror or exc}")
        console.print(f"{done} {path}", style="dim", markup=False)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
