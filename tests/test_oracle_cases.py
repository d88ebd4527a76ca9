"""Differential tests: every family's cases (tests/oracle_cases.py) through one harness.

Optional, as every oracle test: without torch and transformers (the `oracle` extra) they skip.
Each family's row in ORACLE names the module that draws its random tiny configs (`configs`)
and checks one case against the instantiated model (`check_case`): parameters from
`parameters()`, names and shapes from `named_parameters()`, FLOPs from
`torch.utils.flop_counter.FlopCounterMode` over a forward pass with eager attention (and eager
experts), for the decoders the cache after a prefill, one decode step and generate(), and the
checkpoint `save_pretrained` writes against `ffn-calc verify`.

- `test_random_configs[family]`: hypothesis draws `examples` tiny configs of the family.
- `test_explicit_case[label]`: each explicit case of EXPLICIT, always run.
"""

from __future__ import annotations

import os
import warnings
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from oracle_cases import EXPLICIT, MAX_S, MAX_T, ORACLE, case, family_of  # noqa: E402

transformers.logging.set_verbosity_error()
warnings.filterwarnings("ignore")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def adapter(family: str) -> ModuleType:
    """The module that draws and checks the family's cases."""
    return import_module(ORACLE[family].module)


# FFN_CALC_ORACLE_EXAMPLES caps the random configs drawn per family (CI on a 2-core machine
# draws fewer; a developer's run draws each family's own `examples`).
CAP = int(os.environ.get("FFN_CALC_ORACLE_EXAMPLES", "0")) or None


def examples(family: str) -> int:
    n = ORACLE[family].examples
    return n if CAP is None else min(n, CAP)


@pytest.mark.parametrize("family", sorted(ORACLE))
def test_random_configs(family: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    module = adapter(family)

    @settings(max_examples=examples(family), deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        data=module.configs(family),
        batch=st.integers(1, 2),
        s=st.integers(1, MAX_S),
        t=st.integers(1, MAX_T),
    )
    def each(data: Any, batch: int, s: int, t: int) -> None:
        module.check_case(data, batch, s, t, tmp_path_factory.mktemp(family))

    each()


@pytest.mark.parametrize("label", sorted(EXPLICIT))
def test_explicit_case(label: str, tmp_path: Path) -> None:
    data = case(label)
    adapter(family_of(data)).check_case(data, 2, 5, 3, tmp_path)
