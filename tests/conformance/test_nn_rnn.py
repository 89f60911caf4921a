"""Conformance of nn.RNN, nn.LSTM, nn.GRU and their cells against torch 2.13: the weights after
manual_seed, outputs and final states, gradients of the input and of every parameter, multi-layer,
bidirectional, batch_first, unbatched input, given h0 / c0, proj_size, reprs, parameter names,
state_dict keys, the errors of the argument checks, and the LSTM part-of-speech tagger of the
"Sequence Models and Long Short-Term Memory Networks" tutorial."""

from __future__ import annotations

import pytest

from .harness import check

PRE = "nn = torch.nn\nF = torch.nn.functional\n"
CLOSE = {"rtol": 1e-5, "atol": 1e-6}
# run module m on the inputs, then backward the sum of everything it returns
GRADS = (
    "xs = [t for t in ins if t.requires_grad]\n"
    "y = m(*ins); flat = [y[0]] + (list(y[1]) if isinstance(y[1], tuple) else [y[1]])\n"
    "sum(t.sum() for t in flat).backward()\n"
    "out = [t.detach() for t in flat] + [t.grad for t in xs] + "
    "[(n, p.detach(), p.grad) for n, p in m.named_parameters()]"
)


def run(module: str, *inputs: str) -> str:
    return f"m = {module}\nins = [{', '.join(inputs)}]\n" + GRADS


X = "torch.randn(5, 3, 4, requires_grad=True)"
PROGRAMS = {
    "lstm_basic": run("nn.LSTM(4, 6)", X),
    "lstm_two_layers_bidirectional": run("nn.LSTM(4, 5, num_layers=2, bidirectional=True)", X),
    "lstm_batch_first_h0_c0": run(
        "nn.LSTM(4, 5, batch_first=True)",
        X,
        "(torch.randn(1, 5, 5, requires_grad=True), torch.randn(1, 5, 5, requires_grad=True))",
    ),
    "lstm_no_bias": run("nn.LSTM(4, 3, bias=False, num_layers=2)", X),
    "lstm_proj_size": run("nn.LSTM(4, 6, proj_size=3, num_layers=2, bidirectional=True)", X),
    "lstm_unbatched": run(
        "nn.LSTM(4, 5, num_layers=2)",
        "torch.randn(7, 4, requires_grad=True)",
        "(torch.randn(2, 5), torch.randn(2, 5, requires_grad=True))",
    ),
    "lstm_dropout_eval": "m = nn.LSTM(4, 5, num_layers=3, dropout=0.5).eval(); "
    "out = m(torch.randn(5, 2, 4))",
    "lstm_dropout_train_shapes": "m = nn.LSTM(4, 5, num_layers=3, dropout=0.5); "
    "y, (h, c) = m(torch.randn(5, 2, 4)); out = (y.shape, h.shape, c.shape)",
    "rnn_tanh": run("nn.RNN(4, 6)", X),
    "rnn_relu_layers_bidir_batch_first": run(
        "nn.RNN(4, 5, 2, 'relu', batch_first=True, bidirectional=True)",
        X,
        "torch.randn(4, 5, 5, requires_grad=True)",
    ),
    "rnn_unbatched_h0": run(
        "nn.RNN(4, 3, nonlinearity='tanh')",
        "torch.randn(6, 4, requires_grad=True)",
        "torch.randn(1, 3, requires_grad=True)",
    ),
    "gru_basic": run("nn.GRU(4, 6)", X),
    "gru_layers_bidir_h0": run(
        "nn.GRU(4, 5, num_layers=2, bidirectional=True, bias=False)",
        X,
        "torch.randn(4, 3, 5, requires_grad=True)",
    ),
    "gru_batch_first_unbatched": run(
        "nn.GRU(4, 5, batch_first=True)", "torch.randn(6, 4, requires_grad=True)"
    ),
    "lstm_cell": run(
        "nn.LSTMCell(4, 5)",
        "torch.randn(3, 4, requires_grad=True)",
        "(torch.randn(3, 5, requires_grad=True), torch.randn(3, 5, requires_grad=True))",
    ),
    "lstm_cell_unbatched_no_hx": run("nn.LSTMCell(4, 5, bias=False)", "torch.randn(4)"),
    "gru_cell": run(
        "nn.GRUCell(4, 5)",
        "torch.randn(3, 4, requires_grad=True)",
        "torch.randn(3, 5, requires_grad=True)",
    ),
    "rnn_cell_relu": "m = nn.RNNCell(4, 5, nonlinearity='relu'); x = torch.randn(3, 4, "
    "requires_grad=True); y = m(x); y.sum().backward(); out = (y.detach(), x.grad, "
    "m.weight_ih.grad, m.bias_hh.grad)",
    "rnn_cell_sequence": "m = nn.RNNCell(4, 5); h = None; out = []\n"
    "for x in torch.randn(6, 2, 4).unbind(0):\n    h = m(x, h); out.append(h.detach())",
    "lstm_cell_loop": "m = nn.LSTMCell(3, 4); hc = None; xs = torch.randn(4, 2, 3)\n"
    "for x in xs:\n    hc = m(x, hc)\nhc[0].sum().backward(); out = (hc, m.weight_hh.grad)",
    "aten_lstm_cell_gru_cell": "x = torch.randn(2, 3); h = torch.randn(2, 4); c = "
    "torch.randn(2, 4)\nout = (torch.lstm_cell(x, [h, c], torch.randn(16, 3), "
    "torch.randn(16, 4)), torch.gru_cell(x, h, torch.randn(12, 3), torch.randn(12, 4), "
    "torch.randn(12), torch.randn(12)), torch.rnn_tanh_cell(x, h, torch.randn(4, 3), "
    "torch.randn(4, 4)), torch.rnn_relu_cell(x, h, torch.randn(4, 3), torch.randn(4, 4)))",
    "aten_lstm": "x = torch.randn(5, 2, 3); ps = [torch.randn(16, 3), torch.randn(16, 4), "
    "torch.randn(16), torch.randn(16)]\nout = torch.lstm(x, [torch.randn(1, 2, 4), "
    "torch.randn(1, 2, 4)], ps, True, 1, 0.0, False, False, False)",
    "aten_gru_rnn_tanh_rnn_relu": "x = torch.randn(5, 2, 3); h = torch.randn(2, 2, 4); "
    "ps = [torch.randn(12, 3), torch.randn(12, 4), torch.randn(12, 4), torch.randn(12, 4)]; "
    "qs = [torch.randn(4, 3), torch.randn(4, 4), torch.randn(4, 4), torch.randn(4, 4)]\n"
    "out = (torch.gru(x, h, ps, False, 2, 0.0, False, False, False), torch.rnn_tanh(x, h, qs, "
    "False, 2, 0.0, False, False, False), torch.rnn_relu(x.transpose(0, 1), h, qs, False, 2, "
    "0.0, False, False, True), torch.cudnn_is_acceptable(x))",
    "unsafe_chunk": "x = torch.randn(4, 6, requires_grad=True); a, b, c = x.unsafe_chunk(3, 1)"
    "\ny = a.sigmoid_() * b + c.tanh_(); y.sum().backward(); out = (y, x.grad, "
    "torch.unsafe_split(torch.arange(7.0), 3))",
    # ---- weights, names, reprs ----
    "weights_bit_equal": "out = [list(nn.LSTM(3, 4, num_layers=2, bidirectional=True)."
    "parameters()), list(nn.GRU(2, 3).parameters()), list(nn.RNN(2, 3).parameters()), "
    "list(nn.LSTMCell(2, 3).parameters()), list(nn.GRUCell(2, 3).parameters())]",
    "names_and_state_dict": "m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)"
    "\nout = ([(n, tuple(p.shape)) for n, p in m.named_parameters()], list(m.state_dict()), "
    "m._flat_weights_names, [tuple(w.shape) for w in m._flat_weights], "
    "list(nn.GRU(2, 3, bias=False).state_dict()), list(nn.RNNCell(2, 3).state_dict()), "
    "[[tuple(w.shape) for w in ws] for ws in nn.RNN(2, 3, 2).all_weights])",
    "reprs": "out = [repr(m) for m in (nn.LSTM(10, 20, num_layers=2), nn.LSTM(3, 4, "
    "proj_size=2, bias=False, batch_first=True, dropout=0.5, num_layers=2, "
    "bidirectional=True), nn.RNN(3, 4, nonlinearity='relu'), nn.GRU(3, 4), nn.RNNCell(3, 4, "
    "nonlinearity='relu'), nn.LSTMCell(3, 4, bias=False), nn.GRUCell(3, 4), "
    "nn.Sequential(nn.LSTM(2, 3)))]",
    "set_weight_attribute": "m = nn.RNN(2, 3); m.weight_hh_l0 = nn.Parameter(torch.zeros(3, 3))"
    "\nout = (m(torch.ones(2, 1, 2))[0], m._flat_weights[1])",
    # ---- errors ----
    "err_lstm_input_size": "out = nn.LSTM(4, 5)(torch.randn(3, 2, 6))",
    "err_lstm_hidden_size": "out = nn.LSTM(4, 5)(torch.randn(3, 2, 4), (torch.randn(1, 2, 4), "
    "torch.randn(1, 2, 5)))",
    "err_lstm_cell_size": "out = nn.LSTM(4, 5)(torch.randn(3, 2, 4), (torch.randn(1, 2, 5), "
    "torch.randn(2, 2, 5)))",
    "err_lstm_input_dim": "out = nn.LSTM(4, 5)(torch.randn(3, 2, 4, 1))",
    "err_lstm_hx_dim": "out = nn.LSTM(4, 5)(torch.randn(3, 2, 4), (torch.randn(2, 5), "
    "torch.randn(2, 5)))",
    "err_rnn_hidden_size": "out = nn.RNN(4, 5, batch_first=True)(torch.randn(3, 2, 4), "
    "torch.randn(1, 2, 5))",
    "err_gru_hx_dim_unbatched": "out = nn.GRU(4, 5)(torch.randn(3, 4), torch.randn(1, 1, 5))",
    "err_gru_input_dim": "out = nn.GRU(4, 5)(torch.randn(4))",
    "err_rnn_dtype": "out = nn.RNN(4, 5)(torch.randn(3, 2, 4, dtype=torch.float64))",
    "err_rnn_nonlinearity": "out = nn.RNN(4, 5, nonlinearity='sigmoid')",
    "err_gru_proj_size": "out = nn.GRU(4, 5, proj_size=2)",
    "err_proj_size_too_big": "out = nn.LSTM(4, 5, proj_size=5)",
    "err_dropout_range": "out = nn.LSTM(4, 5, dropout=1.5)",
    "err_hidden_size_type": "out = nn.LSTM(4, 5.0)",
    "err_cell_input_size": "out = nn.GRUCell(4, 5)(torch.randn(2, 3))",
    "err_cell_hidden_size": "out = nn.LSTMCell(4, 5)(torch.randn(2, 4), (torch.randn(2, 4), "
    "torch.randn(2, 5)))",
    "err_cell_batch": "out = nn.RNNCell(4, 5)(torch.randn(2, 4), torch.randn(3, 5))",
    "err_cell_input_dim": "out = nn.LSTMCell(4, 5)(torch.randn(1, 2, 4))",
    # ---- the tutorial's LSTM part-of-speech tagger ----
    "tutorial_lstm_pos_tagger": """\
training_data = [
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"]),
]
word_to_ix = {}
for sent, tags in training_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}
EMBEDDING_DIM = 6
HIDDEN_DIM = 6

def prepare_sequence(seq, to_ix):
    return torch.tensor([to_ix[w] for w in seq], dtype=torch.long)

class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        return F.log_softmax(tag_space, dim=1)

model = LSTMTagger(EMBEDDING_DIM, HIDDEN_DIM, len(word_to_ix), len(tag_to_ix))
loss_function = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = []
with torch.no_grad():
    out.append(model(prepare_sequence(training_data[0][0], word_to_ix)))
for epoch in range(20):
    for sentence, tags in training_data:
        model.zero_grad()
        tag_scores = model(prepare_sequence(sentence, word_to_ix))
        loss = loss_function(tag_scores, prepare_sequence(tags, tag_to_ix))
        loss.backward()
        optimizer.step()
        out.append(loss.detach())
with torch.no_grad():
    out.append(model(prepare_sequence(training_data[0][0], word_to_ix)))
out.append(repr(model))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nn_rnn(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], **CLOSE)
