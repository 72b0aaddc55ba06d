"""Test set-up shared by every suite.

Test helpers are plain modules in `support/` (e.g. `kernel_harness`), imported by their own distinctive
names: tosa-tools installs a top-level package called `tests` into site-packages, so nothing here relies
on that name, nor on `support` as a package.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, HERE, os.path.join(HERE, "support")):
    if path not in sys.path:
        sys.path.insert(0, path)

# No warm server (mcu_export/server) behind the CLI subprocesses: each test runs its command in its own process
# and none leaves a daemon behind; tests/test_server.py turns it on, in a folder of its own.
os.environ["MCU_EXPORT_SERVER"] = "off"
