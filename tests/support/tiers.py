"""Which cases of a parametrised model test run in the fast tier (`make test-fast`): the first `keep` of them;
`make test` runs them all."""

from __future__ import annotations

from typing import Iterable, List

import pytest


def fast_first(names: Iterable[str], keep: int = 1) -> List:
    return [n if i < keep else pytest.param(n, marks=pytest.mark.slow) for i, n in enumerate(names)]
