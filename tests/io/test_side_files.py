"""A models side file that does not match the panel's models is said on import (typos, missing rows)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from warned import calling

from benchsift.io.importing import import_files
from benchsift.io.side_files import match_models_table, side_file_warnings
from benchsift.panel import Panel


def _wide(tmp_path: Path) -> Path:
    table = tmp_path / "wide.csv"
    models = ["Qwen2-VL-7B-Instruct", "InternVL2-8B", "llava_v1.5_7b", "GPT4o"]
    pd.DataFrame({"item": ["q1", "q2", "q3"], **{m: [1, 0, 1] for m in models}}).to_csv(table, index=False)
    return table


def test_import_warns_of_unmatched_rows_and_undescribed_models(tmp_path: Path) -> None:
    side = tmp_path / "models.csv"
    side.write_text(
        "model,family,release_date\nQwen2VL-7B,qwen,2024-08-29\nInternVL2-8B,internvl,2024.7\n"
        "GPT4o,openai,2024.1\n"
    )
    res = calling(
        import_files, "wide", _wide(tmp_path), tmp_path / "p.parquet", benchmark="MMMU", models=str(side)
    )
    warnings = res.warnings
    assert f"{side}: 1 release_date value(s) like '2024.1' read as January" in warnings[0]
    assert warnings[1] == (
        f"{side}: 1 row(s) match no model of the panel: ['Qwen2VL-7B'] -- 'Qwen2VL-7B' "
        "(did you mean 'Qwen2-VL-7B-Instruct'?)"
    )
    assert warnings[2] == (
        f"{side}: 2 of the panel's 4 models have no row in it (their family, release date and size come "
        "from the results alone): ['Qwen2-VL-7B-Instruct', 'llava_v1.5_7b']"
    )
    dates = res.panel.models.set_index("model")["release_date"]
    assert dates["InternVL2-8B"] == pd.Timestamp("2024-07-01") and pd.isna(dates["llava_v1.5_7b"])
    # the saved panel is the one returned: the warnings change nothing that was read
    assert Panel.load(tmp_path / "p.parquet").models.equals(res.panel.models)


def test_a_side_file_describing_every_model_is_quiet(tmp_path: Path) -> None:
    side = tmp_path / "models.csv"
    rows = ["Qwen2-VL-7B-Instruct", "InternVL2-8B", "llava_v1.5_7b", "GPT4o"]
    side.write_text("model,release_date\n" + "".join(f"{m},2024-0{i + 1}-15\n" for i, m in enumerate(rows)))
    res = import_files("wide", _wide(tmp_path), tmp_path / "p.parquet", benchmark="MMMU", models=str(side))
    assert res.warnings == []


def test_match_lists_the_first_ten_of_many() -> None:
    models = [f"m{i:02d}" for i in range(25)]
    panel = Panel.from_matrix(pd.DataFrame({"x": [1.0] * 25}).to_numpy(), models, ["x"])
    table = pd.DataFrame({"model": ["m00"]})
    assert match_models_table(panel, table)["n_matched"] == 1
    (said,) = side_file_warnings(panel, match_models_table(panel, table), "models.csv")
    assert said.startswith("models.csv: 24 of the panel's 25 models have no row in it")
    assert said.endswith("'m10', ... 14 more]")
