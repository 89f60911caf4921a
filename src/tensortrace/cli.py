"""The `tensortrace` command: trace an expression and print its call-stack tree.

    tensortrace                                 # the seed: r = torch.rand(3, 4)[0] + ...
    tensortrace "x = rand(2, 3); y = x[0] + 1"  # any statements; `torch` is tensortrace
    tensortrace --layers python,dispatch --chrome trace.json

Names resolve in the tensortrace namespace (`rand`, `add`, `float64` ...) and `torch` is bound to
it, so PyTorch code runs as written. A bad expression prints one line, not a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console

SEED_EXPRESSION = "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"
# From this width on, a frame's PyTorch file, symbol and 2019 name fit beside it on one line;
# narrower terminals get them only with --pytorch (and every frame line is cropped, not wrapped).
WIDE_COLUMNS = 160


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensortrace",
        description="Trace a PyTorch-style expression through tensortrace's binding, "
                    "dispatcher, kernels, allocator and refcounts, and print the call stack.")
    parser.add_argument("source", nargs="?", default=SEED_EXPRESSION,
                        help=f"statements to trace (default: the seed, {SEED_EXPRESSION!r})")
    parser.add_argument("--layers", default=None,
                        help="comma-separated layers to show: python, dispatch, autograd, "
                             "native, kernel, allocator, refcount (default: all)")
    parser.add_argument("--chrome", metavar="PATH",
                        help="also write a Chrome Trace Event file (chrome://tracing, Perfetto)")
    parser.add_argument("--json", metavar="PATH", help="also save the trace as JSON")
    pytorch = parser.add_mutually_exclusive_group()
    pytorch.add_argument("--pytorch", dest="pytorch", action="store_true", default=None,
                         help="show each frame's PyTorch source file, symbol and 2019 name "
                              f"(the default from {WIDE_COLUMNS} columns on)")
    pytorch.add_argument("--no-pytorch", dest="pytorch", action="store_false",
                         help="hide each frame's PyTorch source file and symbol")
    parser.add_argument("--no-instants", action="store_true",
                        help="hide allocations, frees and refcount changes")
    parser.add_argument("--code", action="store_true",
                        help="also print the equivalent code derived from the trace "
                             "(_t1 = torch.rand(3, 4); del _t1 ...), as in seed 000")
    parser.add_argument("--width", type=int, default=None, help="output width in columns")
    return parser


def trace_source(source: str) -> Any:
    """Run `source` in the tensortrace namespace under a trace; return (trace, namespace)."""
    import tensortrace
    from tensortrace.trace import run_source

    namespace: dict[str, Any] = {k: v for k, v in vars(tensortrace).items()
                                 if not k.startswith("_")}
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
    return (f"{len(trace.events)} events, {ops} operator calls, "
            f"{len(allocs)} allocations ({sum(a.args['bytes'] for a in allocs)} B), "
            f"{len(frees)} frees ({sum(f.args['bytes'] for f in frees)} B), "
            f"{live} B still allocated by this trace's survivors")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(width=args.width, highlight=False)
    err = Console(stderr=True, highlight=False)
    layers = None
    if args.layers:
        layers = [layer.strip() for layer in args.layers.split(",") if layer.strip()]

    from tensortrace.replay.tree import render_tree

    try:
        trace, _ = trace_source(args.source)
    except SyntaxError as exc:
        err.print(f"[bold red]tensortrace:[/] syntax error: {exc.msg} (line {exc.lineno})")
        return 1
    except Exception as exc:
        message = str(exc).splitlines()[0] if str(exc) else ""
        err.print(f"[bold red]tensortrace:[/] {type(exc).__name__}: {message}", soft_wrap=True)
        return 1
    try:
        show_pytorch = args.pytorch if args.pytorch is not None else console.width >= WIDE_COLUMNS
        tree = render_tree(trace, layers=layers, show_pytorch=show_pytorch,
                           show_instants=not args.no_instants, title=args.source)
    except ValueError as exc:
        err.print(f"[bold red]tensortrace:[/] {exc}")
        return 2
    console.print(tree)
    if args.code:
        from tensortrace.replay import Timeline

        console.print("\nequivalent code:", style="bold")
        console.print(Timeline(trace).code_view())
    console.print(summary_line(trace), style="dim")
    if args.chrome:
        trace.export_chrome_trace(args.chrome)
        console.print(f"Chrome trace written to {args.chrome}", style="dim")
    if args.json:
        trace.save(args.json)
        console.print(f"trace saved to {args.json}", style="dim")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
