"""TraceFormatError: a trace file that is not a valid tensortrace trace (see format.py).

Its own small module so that `tensortrace.trace` can export it without importing json and the
file checks at `import tensortrace` (they load on the first save or load).
"""


class TraceFormatError(ValueError):
    """A trace file that is not a valid tensortrace trace: where, and what was expected."""

    def __init__(self, file: str, place: str, expected: str, got: str | None = None) -> None:
        self.file, self.place, self.expected, self.got = file, place, expected, got
        message = f"{file}: {place}: expected {expected}"
        super().__init__(message + (f", got {got}" if got is not None else ""))
