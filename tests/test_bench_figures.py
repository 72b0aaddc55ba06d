"""make bench's tables: each figure beside its previous value, read from and saved to a figures file."""

import json

from mcu_export.bench_figures import Column, FigureStore, cell


def test_cell_shows_the_previous_figure_only_when_it_changed():
    col = Column("instr")
    assert cell(8044723, 8044723, col) == "8,044,723 (=)"
    assert cell(7900112, 8044723, col) == "7,900,112 (8,044,723)"
    assert cell(5, None, col) == "5 (new)"
    assert cell(None, 3, col) == "n/a"
    assert cell(1.234, 9.0, Column("s", ".2f", compare=False)) == "1.23"


def test_store_round_trip_prints_previous_beside_new(tmp_path, capsys):
    path = tmp_path / "figures.json"
    path.write_text(json.dumps({"arena": {"kws": {"arena B": 64000}}, "other": {"x": {"y": 1}}}))
    store = FigureStore(path)
    table = store.table("arena", [Column("model", width=6)], [Column("arena B", width=16)])
    table.row(["kws"], {"arena B": 60000})
    table.row(["mlp"], {"arena B": 6272})
    store.save()
    out = capsys.readouterr().out
    assert "60,000 (64,000)" in out and "6,272 (new)" in out
    saved = json.loads(path.read_text())
    assert saved["arena"] == {"kws": {"arena B": 60000}, "mlp": {"arena B": 6272}}
    assert saved["other"] == {"x": {"y": 1}}  # tables not run keep their figures
