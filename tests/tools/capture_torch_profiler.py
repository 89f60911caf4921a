"""Regenerate tests/data/seed_profiler_capture.json from torch.profiler (needs torch 2.13).

    python tests/tools/capture_torch_profiler.py

Keeps what the seed tests compare: the operator events (name, nesting by time), the
`[memory]` instants (Bytes, Total Allocated), in order, and the bits of
`manual_seed(0); rand(3, 4)` in float32 and float64.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

OUT = Path(__file__).resolve().parent.parent / "data" / "seed_profiler_capture.json"


def capture() -> dict[str, object]:
    torch.rand(3, 4)[0] + torch.rand(3, 4)  # warm up the allocator and the op registry
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        torch.rand(3, 4)[0] + torch.rand(3, 4)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text())["traceEvents"]
    ops = [
        {"name": e["name"], "ts": e["ts"], "dur": e["dur"]}
        for e in events
        if e.get("ph") == "X" and e.get("cat") == "cpu_op"
    ]
    memory = [
        {
            "ts": e["ts"],
            "Bytes": e["args"]["Bytes"],
            "Total Allocated": e["args"]["Total Allocated"],
        }
        for e in events
        if e.get("name") == "[memory]"
    ]
    rand_bits = {}
    for dtype, int_view in ((torch.float32, torch.int32), (torch.float64, torch.int64)):
        torch.manual_seed(0)
        rand_bits[str(dtype)] = torch.rand(3, 4, dtype=dtype).view(int_view).flatten().tolist()
    return {
        "torch_version": torch.__version__,
        "rand_seed0_bits": rand_bits,
        "code": "torch.rand(3, 4)[0] + torch.rand(3, 4)",
        "ops": sorted(ops, key=lambda e: e["ts"]),
        "memory": sorted(memory, key=lambda e: e["ts"]),
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(capture(), indent=1) + "\n")
    print(f"wrote {OUT}")
