"""Shared fixtures: a clean allocator check for every test, and torch where it is installed."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import tensortrace


@pytest.fixture
def no_leak() -> Iterator[None]:
    """Fail the test if the CPU allocator holds more bytes at the end than at the start."""
    gc.collect()
    before = tensortrace.memory_allocated("cpu")
    yield
    gc.collect()
    assert tensortrace.memory_allocated("cpu") == before
