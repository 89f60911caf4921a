"""The cost of an allocation served from the caching allocator's cache vs a fresh segment.

    python bench/bench_caching_allocator.py

In one run, interleaved so all cases share the machine's noise, the time of one allocate + free
pair (the DataPtr's deleter) of the emulated CUDA device's caching allocator
(c10/cuda/CUDACachingAllocator.cpp's rules) when:
- cached: the request is served from a cached block (best fit, a split, a merge on free);
- fresh segment: each request needs a new segment: cudaMalloc (a host buffer here) and, with
  empty_cache() between the requests, cudaFree; the time of empty_cache is included;
and the CPU allocator (alloc_cpu / free_cpu, which always asks NumPy for memory) for the same
sizes. On a real GPU cudaMalloc costs milliseconds and the cache saves them; here the emulated
cudaMalloc is a NumPy allocation, so the ratio shows the allocator's own bookkeeping against an
allocation from the host. No trace is active: the @traced frames cost one flag check each.
"""

from __future__ import annotations

import timeit

from tensortrace.c10.cpu_allocator import g_cpu_alloc
from tensortrace.c10.cuda import cuda_caching_allocator as cca

SIZES = (48, 4096, 1 << 20, 3 << 20, 24 << 20)
REPEAT = 7


def cached(nbytes: int) -> None:
    cca.allocator.allocate(nbytes).clear()


def fresh(nbytes: int) -> None:
    cca.allocator.allocate(nbytes).clear()
    cca.allocator.emptyCache()


def cpu(nbytes: int) -> None:
    g_cpu_alloc.allocate(nbytes).clear()


def best_of_interleaved(nbytes: int, number: int) -> tuple[float, float, float]:
    """Seconds per call of cached, fresh and cpu: the best of REPEAT rounds, the three cases
    timed in turn within each round so that they share the machine's noise."""
    times: list[list[float]] = [[], [], []]
    for _ in range(REPEAT):
        for i, fn in enumerate((cached, fresh, cpu)):
            if fn is cached:
                cached(nbytes)  # the segment is in the cache again (fresh emptied it)
            times[i].append(timeit.timeit(lambda fn=fn: fn(nbytes), number=number) / number)
    return min(times[0]), min(times[1]), min(times[2])


def main() -> None:
    cca.allocator.emptyCache()
    print(
        f"{'bytes':>10} | {'cached':>10} | {'fresh segment':>14} | {'CPU allocator':>14} | "
        f"{'fresh / cached':>14}"
    )
    print("-" * 74)
    for nbytes in SIZES:
        t_cached, t_fresh, t_cpu = best_of_interleaved(nbytes, 400)
        print(
            f"{nbytes:>10} | {t_cached * 1e6:>7.2f} us | {t_fresh * 1e6:>11.2f} us | "
            f"{t_cpu * 1e6:>11.2f} us | {t_fresh / t_cached:>13.1f}x"
        )
        cca.allocator.emptyCache()
    stats = cca.allocator.device_allocator_for(0).getStats()
    print(
        f"\nsegments allocated: {stats.segment[0].allocated}, "
        f"blocks allocated: {stats.allocation[0].allocated}, "
        f"reserved now: {stats.reserved_bytes[0].current} B"
    )


if __name__ == "__main__":
    main()
