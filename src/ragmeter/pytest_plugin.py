"""pytest plugin: evaluate a RAG pipeline once per session and assert on its quality.

Configure with command-line options or ini keys (``[pytest]`` / ``[tool.pytest.ini_options]``):

====================  ======================  ===============================================
option                ini key                 meaning
====================  ======================  ===============================================
--ragmeter-cases      ragmeter_cases          eval set file
--ragmeter-pipeline   ragmeter_pipeline       your RAG as ``package.module:function``
--ragmeter-judge      ragmeter_judge          judge kind (default: the config file's, local)
--ragmeter-results    ragmeter_results        results directory: written by the session run,
                                              or loaded when no eval set is given
--ragmeter-baseline   ragmeter_baseline       baseline results for ``ragmeter_baseline``
--ragmeter-config     ragmeter_config         ragmeter.toml (default: found upwards); its
                                              ``[gate]`` table sets ``assert_gate``'s floors,
                                              margin and alpha, as for ``ragmeter gate``
--ragmeter-literal    ragmeter_literal        literal floors in ``assert_gate``: any mean
                                              under its floor fails, even within noise
                                              (default: `[gate] literal`, off: noise-aware)
--ragmeter-enforce-   ragmeter_enforce_       fail, not warn, when a metric whose judge agrees
indicative            indicative              with people near chance misses an absolute bar
                                              (default: `[gate] enforce_indicative`, off)
====================  ======================  ===============================================

A metric is *indicative only* when the run's judge agrees with people near chance on it
(:mod:`ragmeter.results.indicative`): ``assert_mean`` and the gate's floors on it then warn
(``RagmeterIndicativeWarning``) instead of failing, unless enforced; regressions against the
baseline fail as usual.

pytest loads this plugin in every session of a project that installs ragmeter, so the library
is imported inside the fixtures that use it: the plugin itself costs about 4 ms to import,
:mod:`ragmeter.api` about 0.7 s more (measured with `python -X importtime -c "import pytest,
ragmeter.api"`). Its run goes through ragmeter.api, as the command line's does.

The assertions, each named for what it checks::

    def test_rag_quality(ragmeter_run):
        ragmeter_run.assert_mean("faithfulness", ">=", 0.85)  # the mean, read literally
        ragmeter_run.assert_gate()  # `ragmeter gate`: every metric measured, the floors

    def test_no_regression(ragmeter_run, ragmeter_baseline):
        ragmeter_run.assert_no_regression(ragmeter_baseline)  # regressions vs the baseline only

``assert_gate(ragmeter_baseline)`` runs the whole gate, floors and regressions.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .config import GateSettings
    from .results import RunResult
    from .vocabulary import MetricName

_OPTIONS = {
    "cases": "eval set file (JSONL, JSON, YAML, CSV)",
    "pipeline": "the RAG pipeline as package.module:function",
    "judge": "judge kind: local or openai",
    "results": "results directory to write (or to load when no eval set is given)",
    "baseline": "baseline results directory or file",
    "config": "ragmeter.toml to read",
}
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}


_ENFORCE_HELP = (
    "fail, not warn, when a metric whose judge agrees with people near chance (indicative "
    "only) misses an absolute bar (assert_mean, the gate's floors)"
)


_LITERAL_HELP = (
    "literal floors in assert_gate: any mean under its floor fails, even within noise "
    "(default: noise-aware, failing only a mean significantly under its floor)"
)


class RagmeterIndicativeWarning(UserWarning):
    """An absolute bar missed on an indicative-only metric: reported, not failed."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragmeter", "RAG quality with ragmeter")
    for name, help_text in _OPTIONS.items():
        group.addoption(f"--ragmeter-{name}", dest=f"ragmeter_{name}", default=None, help=help_text)
        parser.addini(f"ragmeter_{name}", help_text, default=None)
    for name, help_text in (("enforce-indicative", _ENFORCE_HELP), ("literal", _LITERAL_HELP)):
        dest = f"ragmeter_{name.replace('-', '_')}"
        group.addoption(
            f"--ragmeter-{name}", dest=dest, action="store_true", default=False, help=help_text
        )
        parser.addini(dest, help_text, type="bool", default=False)


@dataclass
class RagmeterOptions:
    """What the session evaluates; override the `ragmeter_options` fixture to set it in code."""

    cases: str | None = None
    pipeline: str | None = None
    judge: str | None = None
    results: str | None = None
    baseline: str | None = None
    config: str | None = None
    enforce_indicative: bool = False
    """Fail, not warn, on absolute bars of indicative-only metrics."""
    literal: bool = False
    """Literal floors in `assert_gate` (any mean under its floor fails)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Other keyword arguments for `api.run_and_save` (e.g. `pipeline_name`)."""


def _worst_lines(run: RunResult, metric: MetricName, limit: int = 5) -> list[str]:
    from .results.explain import explain, short

    scored = sorted(
        ((s, c) for c in run.cases if (s := c.outcome(metric).score) is not None),
        key=lambda sc: (sc[0], sc[1].id),
    )
    lines = []
    for score, case in scored[:limit]:
        lines.append(f"  {score:.2f}  {case.id} [{case.category}] {short(case.question, 90)}")
        why = explain(case, metric, run.judge, pass_mark=run.run.thresholds.get(metric))
        lines.extend(f"        • {r}" for r in why[:2])
    return lines


def _unscored_lines(run: RunResult, metric: str) -> list[str]:
    return [
        f"  {g.n_cases} cases ({', '.join(g.example_ids)}): {g.cause}"
        for g in run.summary.unscored_groups
        if metric in g.metrics and not g.by_design
    ]


class RagmeterRun:
    """A finished run with assertions whose failure messages list the worst cases."""

    def __init__(
        self,
        result: RunResult,
        path: Path | None = None,
        *,
        enforce_indicative: bool = False,
        literal: bool = False,
        gate: GateSettings | None = None,
    ) -> None:
        self.result = result
        self.path = path
        self.enforce_indicative = enforce_indicative
        """Fail, not warn, when an indicative-only metric misses an absolute bar."""
        self.literal = literal
        """Literal floors in `assert_gate`: any mean under its floor fails."""
        self.gate = gate
        """The config's `[gate]` settings, used when an assertion is given none."""

    def _indicative(self, metric: str) -> str | None:
        """Why `metric` is indicative only in this run, None when it is not (or enforced)."""
        from .results.indicative import indicative_metrics

        if self.enforce_indicative:
            return None
        return indicative_metrics(self.result.run.calibration).get(metric)  # type: ignore[call-overload]

    def mean(self, metric: str) -> float | None:
        """The run's stored mean of `metric`."""
        from .vocabulary import METRICS

        if metric not in METRICS:  # no run has it
            return None
        stats = self.result.summary.metrics.get(metric)
        return None if stats is None else stats.mean

    def assert_mean(
        self, metric: str, op: str, value: float, *, allow_unchecked: bool = False
    ) -> None:
        """Assert the mean of `metric` compares to `value` with `op` (>=, >, <=, <, ==).

        Fails, whatever the mean, when the metric was scored on too few of the cases it
        applies to (`min_scored_share`), showing why the others could not be scored, and, as
        `ragmeter gate` fails a floor, when fewer than 2 cases were scored (unless
        `allow_unchecked`).
        """
        from ._util.plural import counted
        from .compare.gate import MIN_CHECKED
        from .results.health import metric_health
        from .vocabulary import METRICS

        if op not in _OPS:
            raise ValueError(f"unknown operator {op!r}; use one of {', '.join(_OPS)}")
        if metric not in METRICS:
            pytest.fail(f"{metric} was not judged in this run", pytrace=False)
        mean = self.mean(metric)
        share = self.result.health.min_scored_share if self.result.health else 0.9
        health = metric_health(self.result.summary, metric, share)
        measured = health is not None and health.ok
        stats = self.result.summary.metrics.get(metric)
        too_few = (stats.n_scored if stats else 0) < MIN_CHECKED and not allow_unchecked
        if mean is not None and measured and not too_few and _OPS[op](mean, value):
            return
        ci = f" (95% CI [{stats.ci[0]:.3f}, {stats.ci[1]:.3f}])" if stats and stats.ci else ""
        shown = "no scored case" if mean is None else f"{mean:.3f}{ci}"
        if measured and mean is not None and too_few:
            scored = stats.n_scored if stats else 0
            pytest.fail(
                f"{metric} mean {shown} was not checked: only {counted(scored, 'scored case')}; "
                f"an assertion on a mean needs at least {MIN_CHECKED} (add cases, or pass "
                "allow_unchecked=True)",
                pytrace=False,
            )
        message = [f"{metric} mean {shown} is not {op} {value}"]
        if measured and (why := self._indicative(metric)):
            warnings.warn(
                RagmeterIndicativeWarning(
                    f"{message[0]}, but {metric} is indicative only ({why}); not failed "
                    "(--ragmeter-enforce-indicative fails it)"
                ),
                stacklevel=2,
            )
            return
        if measured:
            mark = self.result.run.thresholds.get(metric)
            named = "" if mark is None else f" (a case fails under the {mark:.2f} pass mark)"
            message += [f"worst cases{named}:", *_worst_lines(self.result, metric)]
        elif health is None:
            message = [f"{metric} was not judged in this run"]
        else:
            message = [
                f"{metric} was not measured: {health.n_scored} of {health.n_applicable} cases "
                f"scored ({share:.0%} needed)" + (f"; mean {shown}" if mean is not None else ""),
                "unscored, by cause:",
                *_unscored_lines(self.result, metric),
            ]
        pytest.fail("\n".join(message), pytrace=False)

    def assert_gate(
        self,
        baseline: RunResult | str | Path | None = None,
        settings: GateSettings | None = None,
        *,
        force: bool = False,
    ) -> None:
        """Run the whole gate, as `ragmeter gate` does: every metric measured, each floor
        (noise-aware, or literal with `settings.literal` / `--ragmeter-literal`), and, with
        a `baseline`, no regression against it. Fails listing the failed checks and the
        worst cases; `settings` defaults to the config's `[gate]` table."""
        self._gate(baseline, settings, force=force, with_floors=True)

    def assert_no_regression(
        self,
        baseline: RunResult | str | Path,
        settings: GateSettings | None = None,
        *,
        force: bool = False,
    ) -> None:
        """Assert no regression against `baseline` (a significant paired drop beyond the
        margin, as `ragmeter gate` tests it); fail listing the regressed cases. Checks no
        floor: `assert_gate(baseline)` checks both.

        A metric not measured in this run fails (its regression cannot be checked), as does
        a paired test with too few cases (unless `settings.allow_unchecked`); a baseline of
        another eval set (its contents' digest differs) is refused unless `force`."""
        self._gate(baseline, settings, force=force, with_floors=False)

    def _settings(self, settings: GateSettings | None) -> GateSettings:
        """`settings`, else the config's `[gate]`, with the session's enforce/literal flags."""
        from .config import GateSettings

        settings = settings or self.gate or GateSettings()
        flags = {"enforce_indicative": self.enforce_indicative, "literal": self.literal}
        return settings.model_copy(update={k: True for k, on in flags.items() if on})

    def _gate(
        self,
        baseline: RunResult | str | Path | None,
        settings: GateSettings | None,
        *,
        force: bool,
        with_floors: bool,
    ) -> None:
        from .compare import compare_runs
        from .compare.gate import gate_run
        from .results import load_run

        base = load_run(baseline) if isinstance(baseline, str | Path) else baseline
        result = gate_run(
            self.result,
            self._settings(settings),
            baseline=base,
            force=force,
            with_floors=with_floors,
        )
        for check in result.checks:
            if check.status == "warn":
                warnings.warn(RagmeterIndicativeWarning(check.line), stacklevel=3)
        if result.passed:
            return
        floors = "literal" if result.literal else "noise-aware"
        title = (
            f"ragmeter gate failed (floors {floors}):"
            if with_floors
            else "no-regression check against the baseline failed:"
        )
        lines = [title]
        lines += [f"  {c.line}" for c in result.checks if c.status == "fail"]
        lines += [f"  warning: {w}" for w in result.warnings]
        below = [c.metric for c in result.checks if c.kind == "floor" and c.status == "fail"]
        for metric in dict.fromkeys(below):
            lines.append(f"worst cases of {metric}:")
            lines += _worst_lines(self.result, metric)
        failing = {c.metric for c in result.checks if c.kind == "baseline" and c.status == "fail"}
        regressed = []
        if base is not None and failing:
            changes = compare_runs(base, self.result, force=force).regressed
            regressed = [c for c in changes if c.metric in failing]
        if regressed:
            lines.append("worst regressed cases:")
            for change in regressed[:8]:
                lines.append(
                    f"  {change.diff:+.2f} {change.metric} {change.base:.2f} → "
                    f"{change.new:.2f}  {change.case_id}: {change.question[:90]}"
                )
                lines.extend(f"        • {e}" for e in change.evidence[:2])
        pytest.fail("\n".join(lines), pytrace=False)


def _option(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"ragmeter_{name}") or config.getini(f"ragmeter_{name}")
    return str(value) if value else None


@pytest.fixture(scope="session")
def ragmeter_options(pytestconfig: pytest.Config) -> RagmeterOptions:
    """Options from the command line and ini file."""
    return RagmeterOptions(
        cases=_option(pytestconfig, "cases"),
        pipeline=_option(pytestconfig, "pipeline"),
        judge=_option(pytestconfig, "judge"),
        results=_option(pytestconfig, "results"),
        baseline=_option(pytestconfig, "baseline"),
        config=_option(pytestconfig, "config"),
        enforce_indicative=bool(
            pytestconfig.getoption("ragmeter_enforce_indicative")
            or pytestconfig.getini("ragmeter_enforce_indicative")
        ),
        literal=bool(
            pytestconfig.getoption("ragmeter_literal") or pytestconfig.getini("ragmeter_literal")
        ),
    )


@pytest.fixture(scope="session")
def ragmeter_run(
    ragmeter_options: RagmeterOptions, tmp_path_factory: pytest.TempPathFactory
) -> RagmeterRun:
    """Evaluate once per session (or load `results` when no eval set is configured)."""
    from .config import load_settings
    from .results import load_run

    opts = ragmeter_options
    gate = load_settings(opts.config).gate
    flags: dict[str, Any] = {
        "enforce_indicative": opts.enforce_indicative or gate.enforce_indicative,
        "literal": opts.literal or gate.literal,
        "gate": gate,
    }
    if not opts.cases:
        if opts.results and Path(opts.results).exists():
            return RagmeterRun(load_run(opts.results), Path(opts.results), **flags)
        pytest.skip(
            "ragmeter: set --ragmeter-cases (and --ragmeter-pipeline) or "
            "--ragmeter-results DIR with an existing run"
        )
    from . import api  # the door every evaluation goes through (pydantic, the judges, ...)

    settings = api.resolve_settings(opts.config, api.SettingsOverrides(judge=opts.judge))
    cases = api.load_cases(opts.cases)
    pipeline = api.build_pipeline(cases, pipeline=opts.pipeline)
    out = Path(opts.results) if opts.results else tmp_path_factory.mktemp("ragmeter")
    # Each session replaces its own results directory: that is what it is configured for.
    result = api.run_and_save(
        cases,
        pipeline,
        settings,
        out_dir=out,
        cases_file=str(opts.cases),
        **{"overwrite": True, **opts.extra},
    )
    return RagmeterRun(result, out, **flags)


@pytest.fixture(scope="session")
def ragmeter_baseline(ragmeter_options: RagmeterOptions) -> RunResult:
    """The baseline run; the test is skipped when none is configured or it does not exist."""
    from .results import load_run

    path = ragmeter_options.baseline
    if not path:
        pytest.skip("ragmeter: no baseline configured (--ragmeter-baseline)")
    if not Path(path).exists():
        pytest.skip(
            f"ragmeter: no baseline at {path} yet; create it with "
            f"`ragmeter baseline RESULTS --to {path}`"
        )
    return load_run(path)
