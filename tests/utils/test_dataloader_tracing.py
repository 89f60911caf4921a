"""torch.utils.data beyond what torch can be compared with: the lazy subpackage, and a traced
training step that shows the batching as the ops it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tensortrace as torch

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_torch_utils_data_is_reached_as_in_torch() -> None:
    # `import torch` then torch.utils.data.DataLoader, without importing torch.utils first
    code = "import tensortrace as torch; print(torch.utils.data.DataLoader.__module__)"
    done = subprocess.run(
        [sys.executable, "-c", code], env={"PYTHONPATH": SRC}, capture_output=True, text=True
    )
    assert done.stdout.strip() == "tensortrace.utils.data.dataloader", done.stderr


def test_a_traced_batch_shows_the_indexing_and_the_stack() -> None:
    data = torch.utils.data
    loader = data.DataLoader(data.TensorDataset(torch.arange(6.0)), batch_size=3)
    with torch.record() as trace:
        (batch,) = next(iter(loader))
    names = [root.name for root in trace.roots()]
    assert batch.tolist() == [0.0, 1.0, 2.0]
    assert names.count("THPVariable_getitem") == 3  # dataset[i] for each index of the batch
    assert "THPVariable_stack" in names  # default_collate
