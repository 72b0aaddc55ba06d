"""mcu_export/atomic.py: outputs appear whole or not at all, with the mode an ordinary open() gives them."""

from __future__ import annotations

import os
import stat

import pytest

from mcu_export import atomic


def test_a_written_file_has_the_mode_open_would_give_it(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic.write_bytes(tmp_path / "run.json", b"{}\n")
    finally:
        os.umask(old)
    assert path.read_bytes() == b"{}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # not mkstemp's 0600: a report is shared
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_a_failed_write_leaves_neither_the_file_nor_a_temporary(tmp_path):
    with pytest.raises(TypeError):
        atomic.write_bytes(tmp_path / "y.npz", object())  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
