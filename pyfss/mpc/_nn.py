"""torch.nn.Sequential models evaluated on SharedTensor.

The setting is private inference: one party (the model owner) holds the weights,
the other the input. ``convert`` shares the owner's weights once (the other party
learns their shapes, which the architecture shows anyway); every linear layer is then
a Beaver product of shared input and shared weights. Both parties pass a module of
the same architecture: the owner its trained model, the other any module of that
shape (its values are never read: a model made on the "meta" device will do).
``owner=None`` takes the weights as public instead (both parties hold the same model):
linear layers are then local products, without triples or rounds. GELU, Sigmoid,
Tanh, Softmax and LayerNorm run SharedTensor's spline-gate approximations.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from .._validate import integer
from ._tensor import DEFAULT_FRAC_BITS, SharedTensor

#: Modules a converted model runs.
SUPPORTED = (
    "Linear", "Conv2d", "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "LayerNorm",
    "MaxPool2d", "AvgPool2d", "Flatten", "Sequential",
)  # fmt: skip


class SecureSequential:
    """A converted torch.nn.Sequential: call it on a SharedTensor (the input's
    truncation applies to every product). Each child runs inside
    ``party.layer(name)``, named by the child's name, or "index.Class" (e.g.
    "0.Conv2d") for the numbered children of a plain Sequential."""

    def __init__(self, party, layers: list):
        self.party = party
        self.layers = layers  # [(name, SharedTensor -> SharedTensor)]

    def __call__(self, x: SharedTensor) -> SharedTensor:
        if not isinstance(x, SharedTensor):
            raise TypeError(f"x must be a SharedTensor, got {type(x).__name__}")
        for name, run in self.layers:
            with self.party.layer(name):
                x = run(x)
        return x


def convert(
    model: nn.Sequential, party, *, owner: int | None = 1, frac_bits=DEFAULT_FRAC_BITS
) -> SecureSequential:
    """The SecureSequential of model, its weights shared by party ``owner`` (0 or 1;
    the other party passes a model of the same architecture) or public (None).
    Raises NotImplementedError naming a module it cannot run, before any message."""
    if not isinstance(model, nn.Sequential):
        raise TypeError(f"model must be a torch.nn.Sequential, got {type(model).__name__}")
    if owner is not None and integer("owner", owner) not in (0, 1):
        raise ValueError(f"owner must be 0, 1 or None, got {owner}")
    _check(model)
    return _convert(model, party, owner, frac_bits)


def _check(model: nn.Sequential, where: str = "model") -> None:
    """Refuses unsupported modules and options by name (before the owner shares)."""
    for name, m in model.named_children():
        kind, at = type(m).__name__, f"{where}[{name}]"
        if isinstance(m, nn.Sequential):
            _check(m, at)
            continue
        if type(m) not in _RUNS:
            raise NotImplementedError(
                f"{at} is {type(m).__module__}.{kind}, which pyfss.mpc does not run; "
                f"it runs {', '.join(SUPPORTED)}"
            )
        for attr, allowed in _DEFAULTS.get(type(m), {}).items():
            if getattr(m, attr) not in allowed:
                raise NotImplementedError(
                    f"{at} ({kind}) has {attr}={getattr(m, attr)!r}; pyfss.mpc runs only "
                    f"{attr}={allowed[0]!r}"
                )
        if isinstance(m, nn.Conv2d) and isinstance(m.padding, str):
            raise NotImplementedError(f"{at} (Conv2d) has padding={m.padding!r}; give ints")
        # torch picks an implicit dim by the input's rank (deprecated): make it explicit.
        if isinstance(m, nn.Softmax) and m.dim is None:
            raise NotImplementedError(f"{at} (Softmax) has dim=None; give dim")


def _convert(model: nn.Sequential, party, owner, frac_bits) -> SecureSequential:
    layers = []
    for name, m in model.named_children():
        label = f"{name}.{type(m).__name__}" if name.isdigit() else name
        if isinstance(m, nn.Sequential):
            layers.append((label, _convert(m, party, owner, frac_bits)))
            continue
        weights = {
            key: _weight(party, p, owner, frac_bits, f"{label}.{key}")
            for key, p in m.named_parameters(recurse=False)
        }
        layers.append((label, _RUNS[type(m)](m, weights)))
    return SecureSequential(party, layers)


def _weight(party, p: torch.Tensor, owner, frac_bits, label: str):
    """A parameter as the model's forward takes it: shared by the owner, or public."""
    if owner is None:
        return p.detach().double()
    mine = p.detach().double() if party.party == owner else None
    w = SharedTensor.from_secret(party, mine, owner=owner, frac_bits=frac_bits)
    if w.shape != p.shape:
        raise ValueError(
            f"{label} of the owner's model has shape {tuple(w.shape)}, party "
            f"{party.party}'s {tuple(p.shape)}: the architectures differ"
        )
    return w


def _linear(m: nn.Linear, w: dict):
    return lambda x: x.linear(w["weight"], w.get("bias"))


def _conv2d(m: nn.Conv2d, w: dict):
    return lambda x: x.conv2d(w["weight"], w.get("bias"), m.stride, m.padding)


def _max_pool2d(m: nn.MaxPool2d, w: dict):
    return lambda x: x.max_pool2d(m.kernel_size, m.stride, m.padding)


def _avg_pool2d(m: nn.AvgPool2d, w: dict):
    return lambda x: x.avg_pool2d(m.kernel_size, m.stride, m.padding, m.count_include_pad)


def _layer_norm(m: nn.LayerNorm, w: dict):
    # No weight without elementwise_affine, no bias with bias=False: both optional.
    return lambda x: x.layer_norm(m.normalized_shape, w.get("weight"), w.get("bias"), m.eps)


_RUNS: dict[type, Callable] = {
    nn.Linear: _linear,
    nn.Conv2d: _conv2d,
    nn.ReLU: lambda m, w: SharedTensor.relu,
    nn.GELU: lambda m, w: SharedTensor.gelu,
    nn.Sigmoid: lambda m, w: SharedTensor.sigmoid,
    nn.Tanh: lambda m, w: SharedTensor.tanh,
    nn.Softmax: lambda m, w: lambda x: x.softmax(m.dim),
    nn.LayerNorm: _layer_norm,
    nn.MaxPool2d: _max_pool2d,
    nn.AvgPool2d: _avg_pool2d,
    nn.Flatten: lambda m, w: lambda x: x.flatten(m.start_dim, m.end_dim),
}
#: Options of the modules that must keep one of these values.
_ONE = (1, (1, 1))
_DEFAULTS: dict = {
    nn.Conv2d: {"groups": (1,), "dilation": _ONE, "padding_mode": ("zeros",)},
    nn.MaxPool2d: {"dilation": _ONE, "ceil_mode": (False,), "return_indices": (False,)},
    nn.AvgPool2d: {"ceil_mode": (False,), "divisor_override": (None,)},
    nn.GELU: {"approximate": ("none",)},
}
