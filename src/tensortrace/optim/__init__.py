"""torch.optim: Optimizer, SGD, Adam, AdamW, RMSprop and Adagrad, and the learning-rate schedulers
of torch.optim.lr_scheduler, built on the public tensortrace API (torch/optim)."""

from tensortrace.optim import lr_scheduler
from tensortrace.optim.adagrad import Adagrad
from tensortrace.optim.adam import Adam
from tensortrace.optim.adamw import AdamW
from tensortrace.optim.optimizer import Optimizer
from tensortrace.optim.rmsprop import RMSprop
from tensortrace.optim.sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
