"""A Model Explorer extension: ExecuTorch .pte files with each instruction's source line (mcu_export.explore)."""
