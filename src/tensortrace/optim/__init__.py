"""torch.optim: Optimizer and its algorithms (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax,
NAdam, RAdam, ASGD, Rprop, LBFGS, Adafactor), the learning-rate schedulers of
torch.optim.lr_scheduler and the weight averaging of torch.optim.swa_utils, built on the public
tensortrace API (torch/optim)."""

from tensortrace.optim import lr_scheduler, swa_utils
from tensortrace.optim._adafactor import Adafactor
from tensortrace.optim.adadelta import Adadelta
from tensortrace.optim.adagrad import Adagrad
from tensortrace.optim.adam import Adam
from tensortrace.optim.adamax import Adamax
from tensortrace.optim.adamw import AdamW
from tensortrace.optim.asgd import ASGD
from tensortrace.optim.lbfgs import LBFGS
from tensortrace.optim.nadam import NAdam
from tensortrace.optim.optimizer import Optimizer
from tensortrace.optim.radam import RAdam
from tensortrace.optim.rmsprop import RMSprop
from tensortrace.optim.rprop import Rprop
from tensortrace.optim.sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adafactor",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
]

# torch.optim sets it, as the module is private (_adafactor.py)
Adafactor.__module__ = "tensortrace.optim"
