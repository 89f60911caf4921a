"""replay: what a finished trace shows: call-stack trees, the state at any step, the code view.

The profiler-viewer side of tensortrace: it reads a finished Trace only.
"""
