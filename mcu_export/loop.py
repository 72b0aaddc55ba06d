"""`mcu-export run MODEL_SPEC --board B`: export when the model or the options changed, build when the export or
the firmware sources changed (runners/firmware.py), run. One process for the edit-run loop (issue 16).

Whether the export can be reused is decided by a fingerprint written beside it (OUT/export.sha256): the model's
weights and example inputs, the source of every user module that loading the model (and its calibration
function) imported, the export options, and this mcu-export's and torch's versions and Python sources. The
capture, quantization and planning (seconds) are skipped when it matches; loading the model is not (its
weights are part of the fingerprint).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, List, Optional

from mcu_export.pte.debug_map import is_library  # installed packages and the standard library

FINGERPRINT = "export.sha256"


@dataclass(frozen=True)
class ExportOptions:
    quantize: Optional[str]
    calibrate: Optional[str]  # FILE.py:FUNCTION, as given
    board: str
    backend: Optional[str]
    fallback: bool
    overlap: bool
    io: str
    linear_weights: str = "per-channel"


@functools.lru_cache(maxsize=1)
def _package_digest() -> bytes:
    """This mcu-export's Python sources: an edited lowering must not reuse an old export."""
    import mcu_export

    root = Path(mcu_export.__file__).parent
    digest = hashlib.sha256(mcu_export.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def user_files(before: Iterable[str]) -> List[Path]:
    """Source files of the modules imported since `before` (names in sys.modules) that are neither installed
    packages nor the standard library: the model's own code."""
    found = set()
    for name in set(sys.modules) - set(before):
        file = getattr(sys.modules.get(name), "__file__", None)
        if not file:
            continue
        path = Path(file).resolve()
        if path.suffix == ".py" and path.is_file() and not is_library(str(path)):
            found.add(path)
    return sorted(found)


def fingerprint(options: ExportOptions, model, inputs, files: Iterable[Path]) -> str:
    import torch

    digest = hashlib.sha256(_package_digest())
    digest.update(torch.__version__.encode() + b"\0" + repr(options).encode())
    for path in files:
        digest.update(str(path).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    tensors = list(model.state_dict().items()) + [(f"input {i}", x) for i, x in enumerate(inputs)]
    for name, value in tensors:
        if isinstance(value, torch.Tensor):
            array = value.detach().cpu().contiguous()
            digest.update(f"{name} {array.dtype} {tuple(array.shape)}\0".encode())
            digest.update(array.reshape(-1).view(torch.uint8).numpy().tobytes())  # 1-D: a 0-d view cannot widen
        else:
            digest.update(f"{name} {value!r}\0".encode())
    return digest.hexdigest()


def export_if_changed(spec: str, out: Path, options: ExportOptions, progress: Callable[[str], None]):
    """Export `spec` into `out` unless its fingerprint says the export there is this one: the new Artifact, or
    None when the one in `out` is reused."""
    from mcu_export import atomic
    from mcu_export.api import export
    from mcu_export.int8.io_choice import check_io, check_linear_weights
    from mcu_export.model_spec import load_model, parse_spec

    check_io(options.io, options.quantize)  # before loading the model, as `export` does
    check_linear_weights(options.linear_weights, options.quantize)
    before = list(sys.modules)
    model, inputs = load_model(spec)
    calibrate = None
    if options.calibrate:
        from mcu_export.int8.calibrate import load_calibration

        calibrate = load_calibration(options.calibrate)
    # The spec files are imported outside sys.modules (model_spec._import_file): named here, with what they imported.
    specs = [spec] + ([options.calibrate] if options.calibrate else [])
    files = sorted(set(user_files(before)) | {parse_spec(s)[0].resolve() for s in specs})
    wanted = fingerprint(options, model, inputs, files)
    stamp = out / FINGERPRINT
    if (out / "model.pte").is_file() and stamp.is_file() and stamp.read_text().strip() == wanted:
        progress(f"{spec}: unchanged since the export in {out} ({FINGERPRINT}): reusing it")
        return None
    stamp.unlink(missing_ok=True)  # the export below replaces the folder's: until it is complete, no claim
    artifact = export(
        model,
        inputs,
        progress=progress,
        quantize=options.quantize,
        calibrate=calibrate,
        board=options.board,
        backend=options.backend,
        fallback=options.fallback,
        overlap=options.overlap,
        io=options.io,
        linear_weights=options.linear_weights,
    )
    artifact.save(out)
    atomic.write_bytes(stamp, (wanted + "\n").encode())
    return artifact
