"""convert: torch.nn.Sequential on SharedTensor between two parties in threads, against
the same fixed-point network computed in the clear with int64 torch arithmetic, or for
the non-linear layers against float64 torch within docs/mpc.md's errors."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from pyfss.mpc import LocalDealer, SharedTensor, convert, run_local

FRAC = 16
I64 = torch.int64


def fx(v):
    return torch.round(torch.as_tensor(v, dtype=torch.float64) * 2**FRAC).to(I64)


def plain(model, x):
    """model on the encoded x, in fixed point with exact (floor) truncation."""
    for m in model:
        if isinstance(m, nn.Sequential):
            x = plain(m, x)
        elif isinstance(m, nn.Linear):
            x = ((x @ fx(m.weight.detach()).T) >> FRAC) + fx(m.bias.detach())
        elif isinstance(m, nn.Conv2d):
            y = F.conv2d(x, fx(m.weight.detach()), stride=m.stride, padding=m.padding) >> FRAC
            x = y + fx(m.bias.detach()).reshape(-1, 1, 1)
        elif isinstance(m, nn.ReLU):
            x = x.clamp(min=0)
        elif isinstance(m, nn.MaxPool2d):  # float64 is exact below 2^53
            x = F.max_pool2d(x.double(), m.kernel_size, m.stride, m.padding).to(I64)
        elif isinstance(m, nn.AvgPool2d):
            sums = F.avg_pool2d(x.double(), m.kernel_size, m.stride, m.padding, divisor_override=1)
            k = torch.tensor(m.kernel_size).expand(2).prod()
            x = (sums.to(I64) * fx(1 / k)) >> FRAC
        elif isinstance(m, nn.Flatten):
            x = x.flatten(m.start_dim, m.end_dim)
        else:
            raise TypeError(f"no plaintext reference for {m}")
    return x


def cnn():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Sequential(nn.Conv2d(3, 4, 2, stride=1), nn.ReLU()),
        nn.AvgPool2d(3, stride=2, padding=1),
        nn.Flatten(),
        nn.Linear(4 * 2 * 2, 5),
        nn.ReLU(),
        nn.Linear(5, 3),
    )


def private(model, x, owner=1, other=None, truncation="exact"):
    """Party 0 holds x, the owner the model (the other party passes other); the
    opened output and both parties' counters."""

    def both(party):
        mine = model if owner is None or party.party == owner else other or model
        secure = convert(mine, party, owner=owner)
        xs = SharedTensor.from_secret(party, x if party.party == 0 else None, truncation=truncation)
        return secure(xs).reveal_ring(), party.counters()

    (y0, c0), (y1, c1) = run_local(both, dealer=LocalDealer(torch.Generator().manual_seed(1)))
    assert torch.equal(y0, y1)
    return y0, c0, c1


@pytest.mark.parametrize("owner", [1, 0, None])
def test_a_cnn_equals_the_fixed_point_network(owner):
    model = cnn()
    x = torch.randn(2, 1, 8, 8, generator=torch.Generator().manual_seed(2))
    y, _, _ = private(model, x, owner=owner)
    assert torch.equal(y, plain(model, fx(x)))
    # And it is the float network up to fixed-point rounding.
    assert torch.allclose(y.double() / 2**FRAC, model(x).detach().double(), atol=1e-2)


def test_the_other_party_needs_only_the_architecture():
    model = cnn()
    with torch.device("meta"):
        shape_only = cnn()
    x = torch.rand(1, 1, 8, 8, generator=torch.Generator().manual_seed(3))
    y, _, _ = private(model, x, other=shape_only)
    assert torch.equal(y, plain(model, fx(x)))


def test_layers_are_counted_under_their_names():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 2)), nn.Flatten())
    model[2].add_module("act", nn.ReLU())
    x = torch.rand(5, 4, generator=torch.Generator().manual_seed(4))
    y, c0, _ = private(model, x)
    assert torch.equal(y, plain(model, fx(x)))
    names = [k for k in c0 if k != "total"]
    assert names == ["0.Linear", "1.ReLU", "2.Sequential", "2.Sequential/0.Linear",
                     "2.Sequential/act", "3.Flatten"]  # fmt: skip
    # Beaver (e: 5x4, f: 4x3) then exact truncation of 5x3; ReLU of 5x3; nothing to flatten.
    assert c0["0.Linear"]["rounds"] == 2 and c0["0.Linear"]["sent"] == 8 * (20 + 12 + 15)
    assert c0["1.ReLU"]["rounds"] == 1 and c0["1.ReLU"]["sent"] == 8 * 15
    assert c0["2.Sequential"]["rounds"] == 3
    assert c0["3.Flatten"] == {"rounds": 0, "sent": 0, "received": 0, "dealer": 0}


def test_public_weights_need_no_triples():
    model = nn.Sequential(nn.Linear(4, 3))
    x = torch.rand(2, 4, generator=torch.Generator().manual_seed(5))
    y, c0, _ = private(model, x, owner=None, truncation="local")
    assert ((y - plain(model, fx(x))).abs() <= 1).all()  # local truncation: one ulp
    assert c0["0.Linear"] == {"rounds": 0, "sent": 0, "received": 0, "dealer": 0}


# Error bounds of docs/mpc.md's table, for inputs in the documented ranges.
ULP = 2.0**-FRAC
GELU_ERR, SIGMOID_ERR, TANH_ERR, SOFTMAX_ERR, LAYER_NORM_ERR = 6e-5, 6e-5, 1.2e-4, 2e-4, 1e-4


def on_grid(t, bits=FRAC):
    return torch.round(t.double() * 2**bits) / 2**bits


def reference(model, x):
    """model's float64 torch forward on x, and a bound on how far the secure forward
    (exact truncation) may be from it: each layer's own error from docs/mpc.md plus
    the error it receives, scaled by its Lipschitz constant."""
    e = 0.0
    for m in model:
        y = m.double()(x)
        if isinstance(m, nn.Linear):  # exact products of grid values, one floor truncation
            e = m.weight.abs().sum(1).max().item() * e + ULP
        elif isinstance(m, nn.GELU):  # |gelu'| <= 1.13
            e = 1.13 * e + GELU_ERR
        elif isinstance(m, nn.Sigmoid):
            assert x.abs().max() <= 16
            e = e / 4 + SIGMOID_ERR
        elif isinstance(m, nn.Tanh):
            assert x.abs().max() <= 8
            e = e + TANH_ERR
        elif isinstance(m, nn.Softmax):  # |d softmax_i| <= 2 max |dx|
            e = 2 * e + SOFTMAX_ERR
        elif isinstance(m, nn.LayerNorm):
            # c = x - mean moves by 2e, s = sqrt(var + eps) by 2e (var moves by 4 e s),
            # so c / s by 2e (1 + |c / s|) / s, then times the weight.
            s = (x.var(-1, unbiased=False) + m.eps).sqrt()
            assert 2**-10 <= s.min() ** 2 and s.max() ** 2 <= 2**14  # rsqrt's range
            norm = (x - x.mean(-1, keepdim=True)) / s.unsqueeze(-1)
            w = 1.0 if m.weight is None else m.weight.abs().max().item()
            e = w * 2 * e * (1 + norm.abs().max().item()) / s.min().item()
            e += LAYER_NORM_ERR * (1 + w)
        else:
            raise TypeError(f"no error bound for {m}")
        x = y
    return x, e


def mlp(**layer_norm):
    """Linear-GELU-LayerNorm-Linear-Tanh-Linear-Sigmoid-Linear-Softmax, its parameters
    on a grid of 2^-8 so that sharing them adds no rounding error. An eps this large
    moves the output by more than the bound: a converter that dropped it would fail."""
    torch.manual_seed(6)
    model = nn.Sequential(
        nn.Linear(6, 8), nn.GELU(), nn.LayerNorm(8, eps=0.1, **layer_norm),
        nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Sigmoid(),
        nn.Linear(8, 4), nn.Softmax(dim=-1),
    )  # fmt: skip
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith("2."):  # not LayerNorm's ones and zeros
                p.add_(torch.randn_like(p) * 0.5)
            p.copy_(on_grid(p, 8))
    return model.double()


@pytest.mark.parametrize(
    "owner, layer_norm",
    [
        (1, {}),
        (0, {}),
        (None, {}),
        (1, {"elementwise_affine": False}),
        (0, {"bias": False}),
        (None, {"bias": False}),
    ],
)
def test_an_mlp_with_non_linear_layers_matches_torch(owner, layer_norm):
    model = mlp(**layer_norm)
    with torch.device("meta"):
        shape_only = mlp(**layer_norm)
    x = on_grid(torch.randn(5, 6, generator=torch.Generator().manual_seed(7)) * 2)
    # Up to LayerNorm too: the later layers squash its errors below the whole bound.
    for end in (3, len(model)):
        with torch.no_grad():
            want, bound = reference(model[:end], x)
        assert bound < 1e-2  # tight enough to say something about values in [0, 1]
        y, c0, _ = private(model[:end], x, owner=owner, other=shape_only[:end])
        got = y.double() / 2**FRAC
        assert (got - want).abs().max() <= bound
    assert torch.allclose(got.sum(-1), torch.ones(5, dtype=torch.float64), atol=4 * bound)
    assert c0["1.GELU"]["rounds"] == 2 and c0["8.Softmax"]["rounds"] > 2


@pytest.mark.parametrize(
    "module, match",
    [
        (nn.GELU(approximate="tanh"), r"model\[1\] \(GELU\) has approximate='tanh'.*'none'"),
        (nn.Softmax(), r"model\[1\] \(Softmax\) has dim=None; give dim"),
        (nn.Dropout(), r"model\[1\] is torch.nn.modules.dropout.Dropout.*it runs Linear, Conv2d"),
        (nn.Sequential(nn.BatchNorm2d(3)), r"model\[1\]\[0\] is .*BatchNorm2d"),
        (nn.Conv2d(3, 3, 1, groups=3), r"groups=3; pyfss.mpc runs only groups=1"),
        (nn.Conv2d(3, 3, 3, padding="same"), r"padding='same'"),
        (nn.MaxPool2d(2, ceil_mode=True), r"ceil_mode=True"),
        (nn.AvgPool2d(2, divisor_override=3), r"divisor_override=3"),
    ],
)
def test_unsupported_modules_are_refused_by_name(module, match):
    model = nn.Sequential(nn.Linear(3, 3), module)

    def both(party):
        with pytest.raises(NotImplementedError, match=match):
            convert(model, party)
        return party.counters()["total"]["sent"]

    assert run_local(both) == (0, 0)  # refused before the owner shares anything


def test_bad_arguments_are_named():
    def both(party):
        with pytest.raises(TypeError, match="model must be a torch.nn.Sequential"):
            convert(nn.Linear(2, 2), party)
        with pytest.raises(ValueError, match="owner must be 0, 1 or None"):
            convert(nn.Sequential(), party, owner=2)
        with pytest.raises(TypeError, match="x must be a SharedTensor"):
            convert(nn.Sequential(), party)(torch.zeros(2))
        if party.party == 1:  # the owner sends its shapes and shares
            convert(nn.Sequential(nn.Linear(3, 2)), party)
        else:
            with pytest.raises(ValueError, match=r"0.Linear.weight .* the architectures differ"):
                convert(nn.Sequential(nn.Linear(2, 2)), party)

    run_local(both)
