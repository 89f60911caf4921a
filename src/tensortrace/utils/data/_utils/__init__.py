"""torch/utils/data/_utils: what the DataLoader's iterators use (collate, fetch, the worker
loop, the signal handling that notices a dead worker).

Mirrors `torch/utils/data/_utils/__init__.py`: the constants and the exit flag the multi-process
iterator reads.
"""

import atexit
import multiprocessing.util  # noqa: F401 (see _set_python_exit_flag's registration)
import sys

from tensortrace._utils import ExceptionWrapper as ExceptionWrapper  # its old private location

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
r"""Interval (in seconds) to check status of processes to avoid hanging in
    multiprocessing data loading. This is mainly used in getting data from
    another process, in which case we need to periodically check whether the
    sender is alive to prevent hanging."""

python_exit_status = False
r"""Whether Python is shutting down: then an iterator's __del__ leaves its workers alone (they
are daemonic, and the queues they use may already be torn down)."""

HAS_NUMPY = True  # tensortrace always has NumPy: it is built on it


def _set_python_exit_flag() -> None:
    global python_exit_status
    python_exit_status = True


# atexit runs the last registered first: multiprocessing's own exit function (which terminates
# the daemonic workers of iterators still alive) is registered when multiprocessing.util is
# imported, above, so the flag is set before it runs, as torch's is (torch imports
# torch.multiprocessing before torch.utils.data)
atexit.register(_set_python_exit_flag)
