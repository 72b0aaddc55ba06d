"""Load a model from a `path/file.py:factory` spec, where `factory()` returns `(module, example_inputs)`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Tuple

import torch

from mcu_export.errors import UsageError

DEFAULT_FACTORY = "factory"


def parse_spec(spec: str) -> Tuple[Path, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path:  # no colon (or only a Windows-style drive letter): the whole spec is the file
        path, name = spec, DEFAULT_FACTORY
    if not name.isidentifier():
        raise UsageError(f"bad model spec '{spec}': '{name}' is not a Python name (expected path/file.py:factory)")
    return Path(path), name


def _import_file(path: Path):
    module_name = f"mcu_export_user_model_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # The model file's own folder comes first, so that it can import its siblings.
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: report it in one line, not as our traceback
        raise UsageError(f"importing {path} failed: {type(exc).__name__}: {_first_line(exc)}") from exc
    finally:
        sys.path.remove(str(path.parent.resolve()))
    return module


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def load_model(spec: str) -> Tuple[torch.nn.Module, tuple]:
    path, name = parse_spec(spec)
    if not path.is_file():
        raise UsageError(f"model file not found: {path}")
    if path.suffix != ".py":
        raise UsageError(f"model file must be a .py file: {path}")
    module = _import_file(path)
    factory = getattr(module, name, None)
    if factory is None:
        raise UsageError(f"{path} has no '{name}' (expected a function returning (module, example_inputs))")
    if not callable(factory):
        raise UsageError(f"{path}:{name} is not callable")
    try:
        result = factory()
    except Exception as exc:
        raise UsageError(f"{path}:{name}() raised {type(exc).__name__}: {_first_line(exc)}") from exc
    return _check_result(result, f"{path}:{name}()")


def _check_result(result, where: str) -> Tuple[torch.nn.Module, tuple]:
    if not (isinstance(result, tuple) and len(result) == 2):
        raise UsageError(f"{where} must return (module, example_inputs), got {type(result).__name__}")
    model, inputs = result
    if not isinstance(model, torch.nn.Module):
        raise UsageError(f"{where} returned {type(model).__name__} as the model, expected a torch.nn.Module")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if isinstance(inputs, list):
        inputs = tuple(inputs)
    if not isinstance(inputs, tuple) or not inputs:
        raise UsageError(
            f"{where} returned {type(inputs).__name__} as example inputs, expected a non-empty tuple of tensors"
        )
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise UsageError(f"{where}: example input {i} is {type(x).__name__}, expected a torch.Tensor")
    return model, inputs
