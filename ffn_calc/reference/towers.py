"""A tower's matmuls over the image: where a grid tower (Qwen2.5-VL) attends within windows,
its windowed layers' scores run over each window of the image, its other layers' over the
whole image (reference.instantiate walks the tower's stack once, over the whole image).
"""

from __future__ import annotations

from dataclasses import replace

from ffn_calc.model.towers import Tower
from ffn_calc.reference.inventory import Matmul


def windowed(tower: Tower, matmuls: list[Matmul]) -> list[Matmul]:
    """The stack's matmuls, a grid tower's windowed layers' scores over each window of the
    image (its other layers' over the whole image)."""
    g = tower.grid
    layers = tower.stack.n_layers
    windowed = tuple(sorted({i for i in (g.window_layers if g else []) if i < layers}))
    if not windowed:
        return matmuls
    full = tuple(i for i in range(layers) if i not in windowed)
    out: list[Matmul] = []
    for m in matmuls:
        qk, av = m.name.endswith("scores QK^T"), m.name.endswith("scores AV")
        if not (qk or av):
            out.append(m)
            continue
        (key, _), *rest = m.ranges
        if full:
            out.append(replace(m, ranges=((key, full), *rest)))
        for n in tower.windows():  # [n, hq] x [hq, n], then [n, n] x [n, hv]
            m_n_k = (n, m.k, n) if qk else (n, n, m.n)
            out.append(
                replace(m, m=m_n_k[0], k=m_n_k[1], n=m_n_k[2], ranges=((key, windowed), *rest))
            )
    return out
