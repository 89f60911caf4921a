"""torch.nn.modules: the Module base class and the layers built on it (torch/nn/modules)."""

from tensortrace.nn.modules.activation import (
    ELU,
    GELU,
    GLU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    MultiheadAttention,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
)
from tensortrace.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from tensortrace.nn.modules.container import ModuleDict, ModuleList, Sequential
from tensortrace.nn.modules.container_parameter import ParameterDict, ParameterList
from tensortrace.nn.modules.conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from tensortrace.nn.modules.distance import CosineSimilarity, PairwiseDistance
from tensortrace.nn.modules.dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from tensortrace.nn.modules.flatten import Flatten, Unflatten
from tensortrace.nn.modules.linear import Identity, Linear
from tensortrace.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from tensortrace.nn.modules.module import Module
from tensortrace.nn.modules.normalization import GroupNorm, LayerNorm
from tensortrace.nn.modules.padding import (
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad2d,
    ReplicationPad2d,
    ZeroPad2d,
)
from tensortrace.nn.modules.pixelshuffle import PixelShuffle, PixelUnshuffle
from tensortrace.nn.modules.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from tensortrace.nn.modules.rnn import GRU, LSTM, RNN, RNNBase
from tensortrace.nn.modules.rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from tensortrace.nn.modules.sparse import Embedding
from tensortrace.nn.modules.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from tensortrace.nn.modules.upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "BCELoss",
    "KLDivLoss",
    "L1Loss",
    "HuberLoss",
    "SmoothL1Loss",
    "ELU",
    "GELU",
    "GLU",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "ReLU6",
    "SiLU",
    "Softplus",
    "Softsign",
    "Tanhshrink",
    "RNNCellBase",
    "RNNCell",
    "RNNBase",
    "RNN",
    "LSTMCell",
    "LSTM",
    "GRUCell",
    "GRU",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "Conv1d",
    "Conv2d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "CosineSimilarity",
    "CrossEntropyLoss",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "Embedding",
    "Flatten",
    "GroupNorm",
    "Identity",
    "LayerNorm",
    "Linear",
    "MSELoss",
    "MaxPool1d",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ParameterDict",
    "ParameterList",
    "PixelShuffle",
    "PixelUnshuffle",
    "PairwiseDistance",
    "ReflectionPad2d",
    "ReplicationPad2d",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "Unflatten",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ZeroPad2d",
]
