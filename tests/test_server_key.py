"""The warm server's key (mcu_export/server/where.py): what a loaded server depends on changes it, so a command
never runs in a server that loaded other code or another environment; computing it imports no torch."""

from __future__ import annotations

import os
import subprocess
import sys

from cli_runner import ROOT
from mcu_export.server import where


def test_the_key_follows_the_package_files_and_the_import_environment(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "lowering.py").write_text("A = 1\n")
    monkeypatch.setattr(where, "_PACKAGE", package)
    first = where.key()
    assert where.key() == first
    (package / "lowering.py").write_text("A = 22\n")  # another size
    edited = where.key()
    assert edited != first
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert where.key() != edited
    monkeypatch.setenv("UNRELATED_VARIABLE", "x")
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert where.key() == edited


def test_on_off_and_ci(monkeypatch):
    monkeypatch.delenv(where.ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    assert where.enabled() and where.autostart()
    monkeypatch.setenv("CI", "true")
    assert where.enabled() and not where.autostart()  # a CI job may use a server it started, never one by chance
    monkeypatch.setenv(where.ENV, "on")
    assert where.autostart()
    monkeypatch.setenv(where.ENV, "off")
    assert not where.enabled() and not where.autostart()


def test_looking_for_a_server_imports_no_torch(tmp_path):
    code = (
        "import sys; from mcu_export.server.client import run_in_server; "
        "assert run_in_server(['run', 'x.py:f']) is None; assert 'torch' not in sys.modules"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), MCU_EXPORT_SERVER_DIR=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
