"""replay: what a finished trace shows: call-stack trees, the state at any step, the code view.

The profiler-viewer side of tensortrace (like torch.profiler's tables and viewers): it reads a
finished Trace only. A Trace shows itself in the terminal (rich) and in
Jupyter (HTML) as its call tree and summary (Trace.__rich__ and _repr_html_ import it when a trace
is first shown: Note [A Trace shows itself]).
"""

from tensortrace.replay.code_view import render_code
from tensortrace.replay.summary import summary_table
from tensortrace.replay.timeline import Timeline
from tensortrace.replay.tree import render_tree

__all__ = ["Timeline", "render_code", "render_tree", "summary_table"]
