"""Runs in Model Explorer's own venv, not this one: `mcu_export_explorer` below is put on that interpreter's path
alone (mcu_export.explore), so it imports nothing of mcu_export."""
