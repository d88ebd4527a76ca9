"""FFN activations and their derivatives, exact (math.erf), torch-free.

GELU(x) = x * Phi(x) with Phi the standard normal CDF; the tanh approximation is
0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016); SiLU / Swish is
x * sigmoid(x). ReLU'(0) is taken as 0 (PyTorch's convention)."""

from __future__ import annotations

import math

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


DEFAULT_X = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)


def phi(x: float) -> float:
    """Standard normal density."""
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def cdf(x: float) -> float:
    """Standard normal CDF, Phi(x) = (1 + erf(x / sqrt 2)) / 2."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def relu(x: float) -> float:
    return max(0.0, x)


def d_relu(x: float) -> float:
    return 1.0 if x > 0 else 0.0


def gelu(x: float) -> float:
    return x * cdf(x)


def d_gelu(x: float) -> float:
    return cdf(x) + x * phi(x)  # d/dx x Phi(x)


def gelu_tanh(x: float) -> float:
    # x * x * x, not x**3: a float power raises OverflowError where a product gives inf,
    # and tanh(+-inf) = +-1 is the right limit.
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


def d_gelu_tanh(x: float) -> float:
    u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    t = math.tanh(u)
    if t * t == 1.0:  # tanh saturated: sech^2(u) underflows faster than x * du grows
        return 0.5 * (1.0 + t)
    du = SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * x * x)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du


def silu(x: float) -> float:
    return x * sigmoid(x)


def d_silu(x: float) -> float:
    s = sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


FUNCTIONS = {
    "relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh, "silu": silu,
    "d_relu": d_relu, "d_gelu": d_gelu, "d_gelu_tanh": d_gelu_tanh, "d_silu": d_silu,
}  # fmt: skip


# The activations, in the tables' order, with their names on figures and their derivatives.
NAMES = ("relu", "gelu", "gelu_tanh", "silu")
LABELS = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU-tanh", "silu": "SiLU"}
DEFAULT_RANGE = (-3.0, 3.0)

# Where a function jumps: a curve drawn through such a point would show a vertical line that
# the function does not have. ReLU' is 0 below 0 and 1 above; at 0 it is d_relu(0) = 0.
JUMPS: dict[str, tuple[float, ...]] = {"d_relu": (0.0,)}


def one_sided(name: str, x: float) -> tuple[float, float]:
    """The limits of FUNCTIONS[name] from the left and from the right of a jump at x (each
    piece is constant or continuous near the jump, so a step of 1e-9 gives the limit)."""
    f = FUNCTIONS[name]
    step = 1e-9 * max(1.0, abs(x))
    return f(x - step), f(x + step)


def table(xs: tuple[float, ...] | list[float]) -> list[dict[str, float]]:
    """One row per x: every activation and derivative."""
    return [{"x": x, **{name: f(x) for name, f in FUNCTIONS.items()}} for x in xs]
