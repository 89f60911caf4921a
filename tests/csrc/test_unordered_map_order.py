"""The keyword order of torch's "invalid combination" messages (Note [unordered_map iteration
order]): tensortrace's emulation of libstdc++'s unordered_map against torch 2.13 itself."""

from __future__ import annotations

import random
import re

import pytest

from tensortrace.csrc.unordered_map_order import hash_bytes, unordered_map_order

torch = pytest.importorskip("torch")

NAMES = [f"k{i}" for i in range(20)] + ["dtype_", "foo", "bar", "abcdefgh", "abcdefghi", "x" * 17]


def _torch_order(keys: list[str]) -> list[str] | None:
    """The keywords as torch prints them for a call no signature of to() accepts (None when
    torch reports the first unexpected keyword instead, another message)."""
    with pytest.raises(TypeError) as info:
        torch.ones(1).to(**dict.fromkeys(keys, 1))
    found = re.search(r"got \((.*?)\), but", str(info.value))
    if found is None:
        return None
    return [part.split("=")[0] for part in found.group(1).split(", ") if part]


@pytest.mark.parametrize(("seed", "most"), [(0, 4), (1, 4), (2, 8), (3, 13), (4, 20), (5, 20)])
def test_order_matches_torch(seed: int, most: int) -> None:
    """From 2 keys to 20 (past 13, the table rehashes to 29 buckets)."""
    rng = random.Random(seed)
    compared = 0
    for _ in range(40):
        keys = rng.sample(NAMES, rng.randint(2, most))
        theirs = _torch_order(keys)
        if theirs is not None:
            assert unordered_map_order(keys) == theirs, keys
            compared += 1
    assert compared >= 30


def test_hash_bytes_known_values() -> None:
    # std::hash<std::string>{}("") and of "a" with libstdc++ on x86-64
    assert hash_bytes(b"") == 6142509188972423790
    assert hash_bytes(b"a") == 4993892634952068459
