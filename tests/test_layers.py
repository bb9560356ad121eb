"""Packages point one way, and the package says where a module may reach.

Each package of src/ragmeter (its first name under `ragmeter`: `results`, `judges`, ...; a
top-level module is its own) may import only the packages `MAY_IMPORT` names for it: data flows
cases → pipeline → judges → results → stats → reports. So results, cases and stats never
import a judge (what a judge's numbers mean is recorded in the run:
`ragmeter.vocabulary.JudgeTraits`), report renderers only read (runtime imports of results and
what is computed from them; the models of the cost estimate and of generated eval sets for
their types only), and the command line and the pytest plugin reach the runner only through
the door, `ragmeter.api`.

Every import in src/ragmeter (top-level or inside a function, absolute or relative, under
`if TYPE_CHECKING:` too) is read with `ast`, so an import a package may not make fails here
with its file and line, and so does a new package until it is given its place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ragmeter"

FOUNDATION = frozenset({"_exceptions", "_version", "_util", "text", "vocabulary"})
"""What every layer may use: errors, the version, helpers, text handling and the shared words."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "_exceptions": frozenset(),
    "_version": frozenset(),
    "_util": frozenset(),
    "text": frozenset({"_util"}),
    "vocabulary": frozenset({"_util", "text"}),
    "config": FOUNDATION,
    "stats": FOUNDATION,
    "cases": FOUNDATION,
    "pipeline": FOUNDATION | {"cases"},
    "frameworks": FOUNDATION | {"cases", "pipeline"},
    "clients": FOUNDATION,
    "embeddings": FOUNDATION | {"clients"},
    "judges": FOUNDATION | {"clients", "config", "embeddings"},
    "results": FOUNDATION | {"cases", "config", "stats"},
    "compare": FOUNDATION | {"cases", "config", "results", "stats"},
    "vary": FOUNDATION | {"cases", "pipeline", "results"},
    "demo": FOUNDATION | {"embeddings"},
    "generate": FOUNDATION | {"cases", "clients", "demo", "judges", "results", "vary"},
    "run": FOUNDATION | {"cases", "config", "judges", "pipeline", "results", "stats"},
    "api": FOUNDATION
    | {"cases", "config", "demo", "frameworks", "judges", "pipeline", "results", "run"},
    "report": FOUNDATION | {"cases", "compare", "config", "results", "stats", "vary"},
    "pytest_plugin": FOUNDATION | {"api", "cases", "compare", "config", "results"},
    "cli": FOUNDATION
    | {
        "api",
        "cases",
        "clients",
        "compare",
        "config",
        "generate",
        "judges",
        "pipeline",
        "report",
        "results",
        "run",
        "vary",
    },
    "testing": FOUNDATION | {"clients"},
    "__init__": frozenset(),  # the public names, read lazily from anywhere below
}

TYPE_ONLY: dict[str, frozenset[str]] = {"report": frozenset({"clients", "generate"})}
"""Packages a layer may name in type hints only (under `if TYPE_CHECKING:`): the models of the
cost estimate (`clients.cost`) and of generated eval sets that renderers read."""

NOT_THROUGH: dict[str, tuple[str, ...]] = {
    "cli": ("run", "run._runner", "judges.registry", "judges.factories"),
    "pytest_plugin": ("run", "run._runner", "judges"),
}
"""Modules the command line and the pytest plugin reach only through `ragmeter.api`: the runner
and the judge builder (the CLI may name `judges.base.Judge`, which its progress bar shows)."""


def _module_of(start: list[str], name: str, root: Path) -> list[str]:
    """The module `from start import name` reads: `start.name` when that is a module or
    package under `root` (`from ..run import calibrate`), else `start`."""
    where = root.joinpath(*start, name)
    if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
        return [*start, name]
    return start


def _imports(path: Path, root: Path) -> list[tuple[int, str, bool]]:
    """(line, dotted module under ragmeter, type only) for each ragmeter import in `path`."""
    module = path.relative_to(root).with_suffix("").parts
    package = list(module[:-1])  # the package a relative import starts from (also for __init__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for child in ast.walk(statement)
    }
    found = []
    for node in ast.walk(tree):
        targets: list[list[str]] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                start = [*base, *(node.module.split(".") if node.module else [])]
            elif node.module and node.module.split(".")[0] == "ragmeter":
                start = node.module.split(".")[1:]
            else:
                continue
            targets = [_module_of(start, alias.name, root) for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [
                alias.name.split(".")[1:]
                for alias in node.names
                if alias.name.split(".")[0] == "ragmeter"
            ]
        for target in targets:
            if target:
                found.append((node.lineno, ".".join(target), id(node) in typing_only))
    return found


def _layer(path: Path, root: Path) -> str:
    return path.relative_to(root).parts[0].removesuffix(".py")


def _wrong(path: Path, root: Path = PACKAGE) -> list[str]:
    """Each import in `path` its package may not make, as `file:line imports module`."""
    where = path.relative_to(root)
    layer = _layer(path, root)
    allowed = MAY_IMPORT.get(layer)
    bad = []
    for line, target, type_only in _imports(path, root):
        top = target.split(".")[0]
        said = f"{where}:{line} imports {target}"
        if layer == "__init__" or top == layer:
            continue
        if allowed is None:
            bad.append(f"{said} ({layer} has no place in MAY_IMPORT)")
        elif top not in allowed and not (type_only and top in TYPE_ONLY.get(layer, ())):
            bad.append(said)
        elif any(
            target == m or (target.startswith(m + ".") and m != "run")
            for m in NOT_THROUGH.get(layer, ())
        ):
            bad.append(f"{said} (only through ragmeter.api)")
    return bad


def test_every_package_imports_only_the_layers_below_it() -> None:
    bad = [line for path in sorted(PACKAGE.rglob("*.py")) for line in _wrong(path)]
    assert bad == []


def test_every_package_has_its_place() -> None:
    packages = {_layer(path, PACKAGE) for path in PACKAGE.rglob("*.py")}
    assert sorted(packages - set(MAY_IMPORT)) == []


@pytest.mark.parametrize("package", ["results", "cases", "stats"])
def test_results_cases_and_stats_never_import_a_judge(package: str) -> None:
    judging = {"judges", "clients", "embeddings", "run", "api"}
    assert not MAY_IMPORT[package] & judging


@pytest.mark.parametrize(
    ("source", "code", "expected"),
    [
        (
            "judges/local/x.py",
            "from ...results import RunResult",
            "judges/local/x.py:1 imports results",
        ),
        (
            "results/explain.py",
            "from ..judges.llm import graded",
            "results/explain.py:1 imports judges.llm.graded",
        ),
        (
            "results/summary.py",
            "def f():\n    from ..judges.rules import BY_DESIGN",
            "results/summary.py:2 imports judges.rules",
        ),
        ("cases/lint.py", "import ragmeter.judges.rules", "cases/lint.py:1 imports judges.rules"),
        (
            "stats/ppi.py",
            "from ragmeter.clients import errors",
            "stats/ppi.py:1 imports clients.errors",
        ),
        (
            "compare/__init__.py",
            "def f():\n    from ..report.failures import x",
            "compare/__init__.py:2 imports report.failures",
        ),
        ("api.py", "import ragmeter.cli.progress", "api.py:1 imports cli.progress"),
        ("report/y.py", "from ..cli import _app", "report/y.py:1 imports cli._app"),
        ("report/y.py", "from ..run import _runner", "report/y.py:1 imports run._runner"),
        (
            "report/y.py",
            "from ..clients.cost import Estimate",
            "report/y.py:1 imports clients.cost",
        ),
        (
            "cli/run.py",
            "from ..run import judge_cases",
            "cli/run.py:1 imports run (only through ragmeter.api)",
        ),
        (
            "pytest_plugin.py",
            "from .run._runner import evaluate",
            "pytest_plugin.py:1 imports run._runner",
        ),
        (
            "newpkg/x.py",
            "from ..results import RunResult",
            "newpkg/x.py:1 imports results (newpkg has no place in MAY_IMPORT)",
        ),
    ],
)
def test_the_check_catches_each_kind_of_import_a_layer_may_not_make(
    tmp_path: Path, source: str, code: str, expected: str
) -> None:
    fake = tmp_path / "ragmeter"
    for package in ("run", "clients", "cli", "judges/llm", "judges"):
        (fake / package).mkdir(parents=True, exist_ok=True)
        (fake / package / "__init__.py").write_text("", encoding="utf-8")
    for module in ("run/_runner.py", "clients/cost.py", "clients/errors.py", "cli/_app.py"):
        (fake / module).write_text("", encoding="utf-8")
    (fake / "judges/llm/graded.py").write_text("", encoding="utf-8")
    (fake / source).parent.mkdir(parents=True, exist_ok=True)
    (fake / source).write_text(code + "\n", encoding="utf-8")
    assert _wrong(fake / source, fake) == [expected]


def test_renderers_may_name_the_models_they_read_in_type_hints(tmp_path: Path) -> None:
    fake = tmp_path / "ragmeter"
    (fake / "report").mkdir(parents=True)
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..clients.cost import Estimate\n"
    )
    (fake / "report" / "dry_run.py").write_text(code, encoding="utf-8")
    assert _wrong(fake / "report" / "dry_run.py", fake) == []
