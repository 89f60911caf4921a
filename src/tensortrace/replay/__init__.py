"""replay: what a finished trace shows: call-stack trees, the state at any step, the code view.

The profiler-viewer side of tensortrace (like torch.profiler's tables and viewers): it reads a
finished Trace only. Importing it lets a Trace show itself in the terminal (rich) and in
Jupyter (HTML) as its call tree and summary.
"""

from tensortrace.replay.code_view import render_code
from tensortrace.replay.summary import summary_table
from tensortrace.replay.timeline import Timeline, trace_repr_html, trace_rich
from tensortrace.replay.tree import render_tree
from tensortrace.trace import Trace

Trace.__rich__ = trace_rich  # type: ignore[attr-defined]
Trace._repr_html_ = trace_repr_html  # type: ignore[attr-defined]

__all__ = ["Timeline", "render_code", "render_tree", "summary_table"]
