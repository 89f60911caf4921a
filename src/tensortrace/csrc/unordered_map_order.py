"""The order in which a libstdc++ `std::unordered_map<std::string, T>` yields its keys.

torch::format_invalid_args (`torch/csrc/utils/invalid_arguments.cpp`) copies the keyword
arguments into an `std::unordered_map<std::string, PyObject*>` and prints them in that map's
iteration order, not in the order they were passed: `x.to(dtype=torch.float64, foo=1)` reads
`got (foo=int, dtype=torch.dtype, )`. Note [unordered_map iteration order]: that order is a
pure function of the keys and their insertion order in libstdc++ (the compiler PyTorch's Linux
wheels are built with): the hash is `std::_Hash_bytes(data, len, 0xc70f6907)` (libsupc++
hash_bytes.cc, 64-bit size_t), the table starts with 13 buckets on its first insert
(_Prime_rehash_policy, `__fast_bkt[12]`) and grows to the next prime at least twice the size,
a node is inserted at the front of its bucket's run, and a node landing in an empty bucket goes
to the front of the whole list (hashtable.h `_M_insert_bucket_begin`, `_M_rehash_aux`).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["hash_bytes", "unordered_map_order"]

_MASK64 = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995
_STRING_HASH_SEED = 0xC70F6907
# _Prime_rehash_policy::_M_next_bkt's table for fewer than 14 buckets
_FAST_BKT = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def hash_bytes(data: bytes, seed: int = _STRING_HASH_SEED) -> int:
    """std::_Hash_bytes for a 64-bit size_t (what std::hash<std::string> returns)."""
    n = len(data)
    aligned = n & ~7
    h = (seed ^ (n * _MUL)) & _MASK64
    for p in range(0, aligned, 8):
        word = int.from_bytes(data[p : p + 8], "little")
        h ^= (_shift_mix((word * _MUL) & _MASK64) * _MUL) & _MASK64
        h = (h * _MUL) & _MASK64
    if n & 7:
        h ^= int.from_bytes(data[aligned:], "little")  # load_bytes: the tail, little endian
        h = (h * _MUL) & _MASK64
    h = (_shift_mix(h) * _MUL) & _MASK64
    return _shift_mix(h)


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def _next_bkt(n: int) -> int:
    """_Prime_rehash_policy::_M_next_bkt (its prime list is every prime this far up)."""
    if n < len(_FAST_BKT):
        return _FAST_BKT[n]
    while not _is_prime(n):
        n += 1
    return n


def unordered_map_order(keys: Iterable[str]) -> list[str]:
    """The keys, emplaced in this order into an empty map, in the map's iteration order."""
    order: list[str] = []  # the singly linked list after _M_before_begin
    bucket_count, next_resize = 1, 0
    for key in keys:
        if key in order:
            continue  # emplace of an existing key inserts nothing
        count = len(order)
        if count + 1 > next_resize:  # _M_need_rehash(bucket_count, count, 1)
            min_bkts = max(count + 1, 11 if next_resize == 0 else 0)
            if min_bkts >= bucket_count:
                bucket_count = _next_bkt(max(min_bkts + 1, bucket_count * 2))
                next_resize = bucket_count
                order = _rehash(order, bucket_count)
            else:
                next_resize = bucket_count
        order = _insert(order, key, bucket_count)
    return order


def _bucket(key: str, bucket_count: int) -> int:
    return hash_bytes(key.encode()) % bucket_count


def _insert(order: list[str], key: str, bucket_count: int) -> list[str]:
    """_M_insert_bucket_begin: at the front of the key's bucket, or of the list."""
    bkt = _bucket(key, bucket_count)
    for i, other in enumerate(order):
        if _bucket(other, bucket_count) == bkt:
            return order[:i] + [key] + order[i:]
    return [key] + order


def _rehash(order: list[str], bucket_count: int) -> list[str]:
    """_M_rehash_aux for unique keys: each node in list order, front of its new bucket."""
    new: list[str] = []
    for key in order:
        new = _insert(new, key, bucket_count)
    return new
