"""torch.testing: assert_close (and the deprecated assert_allclose), as torch/testing does."""

from tensortrace.testing._comparison import assert_allclose, assert_close

__all__ = ["assert_allclose", "assert_close"]
