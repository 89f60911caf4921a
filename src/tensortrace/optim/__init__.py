"""torch.optim: Optimizer, SGD and Adam, built on the public tensortrace API (torch/optim)."""

from tensortrace.optim.adam import Adam
from tensortrace.optim.optimizer import Optimizer
from tensortrace.optim.sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
