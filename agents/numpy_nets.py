"""The afterstate networks' forward pass in numpy, for play. A decision values a handful of
afterstates, and at that size a pass costs what its operations cost to dispatch, not their
arithmetic: torch takes about 0.6 ms a casino decision (TorchScript included), this about
0.45 ms. The same functions as the torch modules ``agents.afterstate.build_net`` makes, from
their weights; the values agree with torch's to float32 rounding (a few millionths of a
point), not bit for bit (``tests/test_afterstate.py``)."""

from __future__ import annotations

import numpy as np

F32 = np.float32


def _weight(state: dict, name: str) -> np.ndarray:
    """A linear layer's weight, transposed to multiply rows on the right."""
    return np.ascontiguousarray(np.asarray(state[name], F32).T)


def _vector(state: dict, name: str) -> np.ndarray:
    return np.asarray(state[name], F32)


class NumpyMLP:
    """``value_net``'s MLP: linear layers with ReLU between them (dropout is off in play)."""

    def __init__(self, state: dict) -> None:
        layers = sorted({int(k.split(".")[0]) for k in state})
        self.layers = [(_weight(state, f"{i}.weight"), _vector(state, f"{i}.bias"))
                       for i in layers]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The value of each row of ``x`` (float32 inputs)."""
        h = x
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                np.maximum(h, 0, out=h)
        return h[:, 0]


def _norm_linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``nn.LayerNorm`` over the rows of ``x`` (eps 1e-5, torch's default) then a linear
    layer, with the norm's centring, scale and shift folded into ``w`` and ``b``
    (``_fold_norm``): what remains per row is dividing by its standard deviation, from its
    first two moments."""
    width = F32(1 / x.shape[1])
    mean = x.sum(1) * width
    var = np.einsum("ij,ij->i", x, x) * width - mean * mean
    y = x @ w
    y *= (1 / np.sqrt(np.maximum(var, 0) + F32(1e-5)))[:, None]
    y += b
    return y


def _fold_norm(g: np.ndarray, b: np.ndarray, w: np.ndarray, c: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The weights that make ``_norm_linear(x, ...)`` equal ``LayerNorm(x) @ w + c`` for a
    norm of scale ``g`` and shift ``b``: the centring (subtract each column's mean of the
    scaled weights) and the scale in the weight, the shift in the bias."""
    scaled = g[:, None] * w
    return (np.ascontiguousarray(scaled - scaled.mean(0, keepdims=True), F32),
            (b @ w + c).astype(F32))


class NumpySetNet:
    """``set_value_net``'s transformer over the cards in play (that function's text says
    what the tokens are): pre-norm encoder layers with ReLU feed-forward, padding tokens
    masked out of the attention and the pooling."""

    def __init__(self, state: dict, offsets: dict, max_value: int, heads: int = 4) -> None:
        # the hand, the opponent's hand and the table planes, read in one gather
        self.planes = np.concatenate([np.arange(52) + offsets[k]
                                      for k in ("hand", "opp", "table")])
        self.owner, self.multiple = offsets["build_owner"], offsets["build_multiple"]
        self.max_value, self.heads = max_value, heads
        cards = np.arange(52)
        # a card's token starts from its rank's and its suit's embeddings, summed once here
        self.card = _vector(state, "rank.weight")[cards // 4] + \
            _vector(state, "suit.weight")[cards % 4]
        self.value = _vector(state, "value.weight")
        self.where = _weight(state, "where.weight"), _vector(state, "where.bias")
        self.summary = _weight(state, "summary.weight"), _vector(state, "summary.bias")
        self.layers = []
        i = 0
        while f"encoder.layers.{i}.norm1.weight" in state:
            def get(name: str, f=_vector, p=f"encoder.layers.{i}.") -> np.ndarray:
                return f(state, p + name)

            # each layer norm folded into the linear layer it feeds (``_fold_norm``); the
            # attention's 1/sqrt(head width) into the queries' third of the projection
            g1, b1, g2, b2 = (get(k) for k in ("norm1.weight", "norm1.bias",
                                                "norm2.weight", "norm2.bias"))
            wi, bi = _fold_norm(g1, b1, get("self_attn.in_proj_weight", _weight),
                                get("self_attn.in_proj_bias"))
            third = wi.shape[1] // 3
            scale = F32(1 / np.sqrt(third // heads))
            wi[:, :third] *= scale
            bi[:third] *= scale
            w1, c1 = _fold_norm(g2, b2, get("linear1.weight", _weight), get("linear1.bias"))
            self.layers.append((wi, bi, get("self_attn.out_proj.weight", _weight),
                                get("self_attn.out_proj.bias"), w1, c1,
                                get("linear2.weight", _weight), get("linear2.bias")))
            i += 1
        self.head = (_weight(state, "head.0.weight"), _vector(state, "head.0.bias"),
                     _weight(state, "head.2.weight"), _vector(state, "head.2.bias"))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The value of each row of ``x`` (float32 inputs)."""
        rows = len(x)
        planes = x[:, self.planes].reshape(rows, 3, 52)
        live = (planes != 0).any(1)
        n = int(live.sum(1).max())
        # each row's cards in play first, in card order, then padding
        ids = np.argsort(~live, axis=1, kind="stable")[:, :n]
        r = np.arange(rows)[:, None]
        at = planes.transpose(0, 2, 1)[r, ids]  # (rows, n, 3): hand, opponent, table
        keep = live[r, ids]
        table = at[..., 2]
        value = np.rint(np.maximum(-table, 0) * self.max_value).astype(np.intp)
        build = value > 0
        slot = np.maximum(value - 1, 0)
        feats = np.empty((rows, n, 6), F32)
        feats[..., :2] = at[..., :2]  # in my hand, in the opponent's (two decks: copies / 2)
        feats[..., 2] = np.maximum(table, 0)  # loose
        feats[..., 3] = build
        feats[..., 4] = x[:, self.owner:self.owner + self.max_value][r, slot] * build
        feats[..., 5] = x[:, self.multiple:self.multiple + self.max_value][r, slot] * build
        (ww, wb), (sw, sb) = self.where, self.summary
        length, dim = n + 1, sw.shape[1]
        seq = np.empty((rows, length, dim), F32)
        seq[:, 0] = x @ sw + sb
        seq[:, 1:] = self.card[ids] + self.value[value] + feats @ ww + wb
        seq = seq.reshape(rows * length, dim)
        # an additive mask over the keys (the summary token first, never padding)
        mask = np.zeros((rows, 1, 1, length), F32)
        mask[:, 0, 0, 1:][~keep] = -np.inf
        heads = self.heads
        per = dim // heads
        for wi, bi, wo, bo, w1, c1, w2, c2 in self.layers:
            qkv = _norm_linear(seq, wi, bi).reshape(
                rows, length, 3, heads, per).transpose(2, 0, 3, 1, 4)
            att = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) + mask
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            out = (att @ qkv[2]).transpose(0, 2, 1, 3).reshape(rows * length, dim)
            seq += out @ wo + bo
            f = _norm_linear(seq, w1, c1)
            np.maximum(f, 0, out=f)
            seq += f @ w2 + c2
        seq = seq.reshape(rows, length, dim)
        k = keep.astype(F32)[:, None]  # (rows, 1, n)
        pooled = (k @ seq[:, 1:])[:, 0] / np.maximum(k.sum(2), 1)
        h0, c0, h2, c2 = self.head
        z = np.concatenate([seq[:, 0], pooled], 1) @ h0 + c0
        np.maximum(z, 0, out=z)
        return (z @ h2 + c2)[:, 0]


def numpy_net(meta: dict, state: dict, offsets: dict, max_value: int
              ) -> NumpyMLP | NumpySetNet:
    """The forward pass of the network ``meta`` describes, with weights ``state`` (name ->
    array) and, for a set network, the row layout's ``offsets`` (the opponent's hand plane
    under "opp") and the largest build value."""
    if meta.get("kind") == "set":
        return NumpySetNet(state, offsets, max_value, meta.get("heads", 4))
    return NumpyMLP(state)


__all__ = ["NumpyMLP", "NumpySetNet", "numpy_net"]
