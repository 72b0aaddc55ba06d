"""Ships the C runtime, templates and board files inside the `mcu_export` package of a wheel.

pyproject.toml holds the metadata; this only adds a build step that copies the top-level asset folders
to `mcu_export/_assets/`, so site-packages gets no generic top-level names (`codegen`, `fvp`, ...).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ASSET_FOLDERS = ("runtime_c", "codegen", "boards", "cmsis_nn_kernels", "fvp")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "build", ".*")


class BuildWithAssets(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an editable install reads the folders in place
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "mcu_export" / "_assets"
        for name in ASSET_FOLDERS:
            if (root / name).is_dir():
                shutil.copytree(root / name, target / name, ignore=IGNORE, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithAssets})
