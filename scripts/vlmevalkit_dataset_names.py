"""Write ``src/benchsift/io/_vlmevalkit_names.py``: the dataset names VLMEvalKit supports, from its source.

    python scripts/vlmevalkit_dataset_names.py VLMEVALKIT_CHECKOUT

VLMEvalKit's ``vlmeval/dataset/__init__.py`` builds ``SUPPORTED_DATASETS`` from every dataset class's
``supported_datasets()``, which for most classes is ``list(cls.DATASET_URL)``; importing the package needs
its whole model zoo, so this script reads the source instead (``ast``): the string keys of every class's
``DATASET_URL`` dict literal and the string constants of every ``supported_datasets`` method that lists
names (names without a letter, frame counts such as ``'10'``, are left out). Classes whose ``DATASET_URL``
is computed (a dict comprehension or a name) are listed in the module's comment, not in the tuple.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "benchsift" / "io" / "_vlmevalkit_names.py"


def names_in(checkout: Path) -> tuple[set[str], list[str]]:
    names: set[str] = set()
    computed: list[str] = []
    for path in sorted((checkout / "vlmeval" / "dataset").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for st in node.body:
                if isinstance(st, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "DATASET_URL" for t in st.targets
                ):
                    if isinstance(st.value, ast.Dict):
                        names.update(
                            k.value
                            for k in st.value.keys
                            if isinstance(k, ast.Constant) and isinstance(k.value, str)
                        )
                    else:
                        computed.append(f"{path.relative_to(checkout)}:{node.name}")
                if isinstance(st, ast.FunctionDef) and st.name == "supported_datasets":
                    for sub in ast.walk(st):
                        if isinstance(sub, ast.List | ast.Tuple):
                            names.update(
                                e.value
                                for e in sub.elts
                                if isinstance(e, ast.Constant) and isinstance(e.value, str)
                            )
    return {n for n in names if any(c.isalpha() for c in n)}, computed


def main(checkout: Path) -> None:
    names, computed = names_in(checkout)
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    lines = [
        '"""The dataset names VLMEvalKit supports (``SUPPORTED_DATASETS``), read from its source.',
        "",
        "Written by ``scripts/vlmevalkit_dataset_names.py`` from VLMEvalKit commit",
        f"{commit or checkout.name}. Classes with a computed ``DATASET_URL`` (names not listed):",
        *[f"{c}," for c in computed],
        '"""',
        "",
        "DATASETS: frozenset[str] = frozenset(",
        "    {",
        *[f"        {n!r}," for n in sorted(names)],
        "    }",
        ")",
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(names)} names -> {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
