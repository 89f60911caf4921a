"""torch.profiler: `profile(activities=..., schedule=..., on_trace_ready=...)`, `record_function`,
`schedule`, and `tensorboard_trace_handler`, on tensortrace's recorder.

Mirrors `torch/profiler/profiler.py`: the profiler steps through a schedule (wait, warmup,
active) and records only the active steps, each inside a `ProfilerStep#N` scope, handing each
finished cycle to `on_trace_ready`. The recording is the legacy profiler's
(tensortrace.autograd.profiler.profile): a tensortrace trace seen as torch.profiler's events.
There is one activity here, the CPU: the emulated CUDA device's kernels run on the CPU, inside
the operator scopes.
"""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from tensortrace.autograd.profiler import EventList, record_function
from tensortrace.autograd.profiler import profile as _legacy_profile

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set[ProfilerActivity]:
    return {ProfilerActivity.CPU}


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """Skip `skip_first` steps, then cycle: `wait` steps, `warmup` steps, `active` recorded
    steps (the last one RECORD_AND_SAVE); `repeat` cycles (0: until the profiler stops)."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
) -> Callable[[profile], None]:
    """An on_trace_ready that writes each cycle's Chrome trace into `dir_name`, named as
    torch names them (`<worker>.<ms>.pt.trace.json`)."""

    def handler_fn(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            raise NotImplementedError("tensortrace writes uncompressed traces (use_gzip=False)")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class profile(_legacy_profile):  # noqa: N801 - torch's name
    """`with torch.profiler.profile(activities=[ProfilerActivity.CPU]) as prof: ...`; with a
    `schedule`, call `prof.step()` after each step."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[..., Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack
        )
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _default_schedule_fn
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn: record_function | None = None

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.stop()

    def start(self) -> None:
        self._transit_action(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit_action(self.current_action, None)

    def events(self) -> EventList:
        """The events of the last finished recording (torch.profiler's profile.events())."""
        return self._check_finish()

    def step(self) -> None:
        """The next step begins: follow the schedule from this step's action to the next's."""
        self._exit_step()
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        self._enter_step()

    def _enter_step(self) -> None:
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _exit_step(self) -> None:
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit_action(self, prev: ProfilerAction, current: ProfilerAction | None) -> None:
        """profile.action_map: what a change of action does (start_trace, stop_trace,
        _trace_ready); a warmup records nothing here, so it needs no preparing."""
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev in (ProfilerAction.NONE, ProfilerAction.WARMUP):
            if current in recording:
                self._start()
            elif prev is ProfilerAction.WARMUP and current is not ProfilerAction.WARMUP:
                if current is ProfilerAction.NONE:
                    warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=2)
                self._start()  # torch starts and stops a trace here: an empty one
                self._stop()
            return
        if prev is ProfilerAction.RECORD:
            if current in recording:
                return
            if current is not None:
                warnings.warn(
                    f"Incorrect schedule: RECORD followed by {current.name}", stacklevel=2
                )
            self._stop()
            if current is None:
                self._trace_ready()
            return
        # RECORD_AND_SAVE: the cycle is done
        self._stop()
        self._trace_ready()
        if current in recording:
            self._start()

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)
