"""Layers point one way: cli → report → core, and the judges below the run's records, which
share `ragmeter.vocabulary` with the judges instead of importing them.

Every import in src/ragmeter (top-level or inside a function, absolute or relative) is read
with `ast`, so an upward import anywhere fails here with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ragmeter"

# (importing package, imported package): forbidden pairs. Packages are the first component
# under ragmeter ("cli", "report", "judges", ...; a top-level module is its own name).
CORE_BELOW_PRESENTATION = {"report", "cli"}
JUDGES_BELOW = {"results", "runner", "summary", "report", "cli", "api", "spool"}
RECORDS = {"cases", "results", "config", "lint", "labels", "records"}
"""The modules of the eval set, run record, config and labels: they never import `judges`."""


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, dotted module under ragmeter) for each ragmeter import in `path`."""
    module = path.relative_to(root).with_suffix("").parts
    package = module[:-1]  # the package a relative import starts from (also for __init__)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - (node.level - 1)])
                target = [*base, *(node.module.split(".") if node.module else [])]
                names = [target] if node.module else [[*base, a.name] for a in node.names]
            elif node.module and node.module.split(".")[0] == "ragmeter":
                names = [node.module.split(".")[1:]]
            else:
                continue
            found += [(node.lineno, ".".join(n)) for n in names if n]
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, ".".join(a.name.split(".")[1:]))
                for a in node.names
                if a.name.split(".")[0] == "ragmeter" and "." in a.name
            ]
    return found


def _upward(path: Path, root: Path = PACKAGE) -> list[str]:
    where = path.relative_to(root)
    layer = where.parts[0].removesuffix(".py")
    bad = []
    for line, target in _imports(path, root):
        top = target.split(".")[0]
        if layer not in {"cli", "report", "testing", "pytest_plugin", "__init__"} and (
            top in CORE_BELOW_PRESENTATION
        ):
            bad.append(f"{where}:{line} imports {target}")
        if layer == "report" and top == "cli":
            bad.append(f"{where}:{line} imports {target}")
        if layer == "judges" and top in JUDGES_BELOW:
            bad.append(f"{where}:{line} imports {target}")
        if layer in RECORDS and top == "judges":
            bad.append(f"{where}:{line} imports {target}")
    return bad


def test_no_module_imports_a_layer_above_it() -> None:
    bad = [line for path in sorted(PACKAGE.rglob("*.py")) for line in _upward(path)]
    assert bad == []


@pytest.mark.parametrize(
    ("source", "code", "expected"),
    [
        (
            "judges/local/x.py",
            "from ...results import RunResult",
            "judges/local/x.py:1 imports results",
        ),
        (
            "compare.py",
            "def f():\n    from .report.failures import x",
            "compare.py:2 imports report.failures",
        ),
        ("api.py", "import ragmeter.cli.progress", "api.py:1 imports cli.progress"),
        ("report/y.py", "from ..cli import _app", "report/y.py:1 imports cli"),
        ("results.py", "from .judges.base import Sample", "results.py:1 imports judges.base"),
        ("cases.py", "def f():\n    from . import judges", "cases.py:2 imports judges"),
        ("config.py", "import ragmeter.judges.rules", "config.py:1 imports judges.rules"),
        ("lint.py", "from ragmeter.judges import rules", "lint.py:1 imports judges"),
    ],
)
def test_the_check_catches_each_kind_of_upward_import(
    tmp_path: Path, source: str, code: str, expected: str
) -> None:
    fake = tmp_path / "ragmeter"
    (fake / source).parent.mkdir(parents=True, exist_ok=True)
    (fake / source).write_text(code + "\n", encoding="utf-8")
    assert _upward(fake / source, fake) == [expected]
