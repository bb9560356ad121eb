"""Calibration: labelled-case loading, agreement of real judges, storage by fingerprint, PPI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from factories import case, run
from ragmeter._exceptions import CaseFileError
from ragmeter.cases.labels import label_kind, load_case_labels, load_labelled_cases
from ragmeter.cli import app
from ragmeter.judges.base import ClaimVerdict, Evidence, JudgeFingerprint, MetricResult, Sample
from ragmeter.judges.local import LocalJudge
from ragmeter.results.calibration import find_calibration, load_calibration, store_calibration
from ragmeter.run.calibrate import calibrate, calibrate_run, calibration_notes
from ragmeter.testing import FakeOpenAI, Smart

CONTEXT = (
    "The Eiffel Tower is 330 metres tall. It opened in 1889 in Paris. "
    "Gustave Eiffel's company designed and built it."
)
FAITHFUL = [
    "The Eiffel Tower is 330 metres tall.",
    "It opened in 1889.",
    "The tower stands in Paris.",
    "Gustave Eiffel's company built the tower.",
    "The Eiffel Tower opened in 1889 in Paris.",
]
UNFAITHFUL = [
    "The Eiffel Tower is 512 metres tall.",
    "It opened in 1925.",
    "The tower was moved to Lyon by Napoleon in 1950.",
    "Bananas are the main export of Iceland according to Reykjavik officials.",
    "The tower is painted with 60 tonnes of gold by Marconi.",
]


def write_labels(path, graded: bool = False) -> None:
    rows = []
    for i, answer in enumerate(FAITHFUL + UNFAITHFUL):
        good = i < len(FAITHFUL)
        value = (0.67 + 0.33 * (i % 2)) if graded and good else float(good)
        if graded and not good:
            value = 0.33 * (i % 2)
        rows.append(
            {
                "id": f"c{i}",
                "question": "Tell me about the Eiffel Tower.",
                "contexts": [CONTEXT],
                "answer": answer,
                "labels": {"faithfulness": value},
                "label_meta": {"raters": 2},
            }
        )
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


# --- the labelled-case format ---------------------------------------------------------------


def test_load_labelled_cases(tmp_path):
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    cases = load_labelled_cases(path)
    assert len(cases) == 10
    assert cases[0].labels == {"faithfulness": 1.0}
    assert cases[0].to_case().answer == FAITHFUL[0]
    assert label_kind(c.labels["faithfulness"] for c in cases) == "binary"
    assert label_kind([0.0, 0.67, 1.0]) == "graded"


@pytest.mark.parametrize(
    ("record", "field", "says"),
    [
        ({"question": "q", "answer": "a"}, "labels", "missing labels"),
        (
            {"question": "q", "answer": "a", "labels": {"faithfullness": 1}},
            "labels.faithfullness",
            "did you mean 'faithfulness'",
        ),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": 3}},
            "labels.faithfulness",
            "outside [0, 1]",
        ),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": "yes"}},
            "labels.faithfulness",
            "must be a number",
        ),
        ({"question": "q", "labels": {"faithfulness": 1}}, "answer", "missing"),
        (
            {"question": "q", "answer": "a", "labels": {"faithfulness": 1}, "contexts": "x"},
            "contexts",
            "list",
        ),
    ],
)
def test_errors_name_file_line_and_field(tmp_path, record, field, says):
    path = tmp_path / "labels.jsonl"
    good = {"id": "ok", "question": "q", "answer": "a", "labels": {"faithfulness": 1}}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_labelled_cases(path)
    assert info.value.line == 3
    assert info.value.field == field
    assert says in str(info.value)
    assert str(info.value).startswith(f"{path}:3: field '{field}'")


def test_duplicate_ids_and_run_labels_need_ids(tmp_path):
    path = tmp_path / "labels.jsonl"
    row = {"id": "x", "question": "q", "answer": "a", "labels": {"faithfulness": 1}}
    path.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match="duplicate id 'x'"):
        load_labelled_cases(path)
    path.write_text(json.dumps({"labels": {"faithfulness": 1}}) + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match="missing id"):
        load_case_labels(path)


# --- calibrating real judges ----------------------------------------------------------------


def test_local_judge_agrees_on_clear_cases(tmp_path):
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    result = calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=200)
    part = result.metrics["faithfulness"]
    assert part.kind == "binary" and part.n + part.n_unscored == 10
    values = {m.name: m.value for m in part.measures}
    assert values["AUROC"] >= 0.9
    assert values["balanced accuracy"] >= 0.8
    assert part.headline is not None and part.headline.name == "AUROC"
    assert part.line().startswith("faithfulness judge: AUROC ")
    assert result.judge_key == result.judge.key()

    write_labels(path, graded=True)
    graded = calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=200)
    names = [m.name for m in graded.metrics["faithfulness"].measures]
    assert names == ["Spearman", "Kendall"]
    assert graded.metrics["faithfulness"].measures[0].value > 0.5


def test_cli_with_local_judge_stores_and_later_runs_report_it(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["calibrate", str(path), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "AUROC" in result.output and "balanced accuracy" in result.output
    saved = load_calibration(out)
    assert saved.metrics["faithfulness"].n + saved.metrics["faithfulness"].n_unscored == 10
    # a later run with the same judge fingerprint finds it; a different judge does not
    notes = calibration_notes(saved.judge)
    assert [n.metric for n in notes] == ["faithfulness"] and notes[0].measure == "AUROC"
    other = saved.judge.model_copy(update={"prompt_version": "other"})
    assert calibration_notes(other) == []


def test_run_report_shows_calibration_or_uncalibrated(tmp_path, monkeypatch):
    from ragmeter.api import run_and_save
    from ragmeter.cases import Case
    from ragmeter.config import Settings
    from ragmeter.pipeline import PrecomputedPipeline
    from ragmeter.report.inputs import ReportInputs
    from ragmeter.report.terminal import render_text

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    cases = [Case(id="a", question="How tall?", contexts=[CONTEXT], answer=FAITHFUL[0])]
    before = run_and_save(
        cases,
        PrecomputedPipeline(),
        Settings(),
        out_dir=tmp_path / "r1",
        judge=LocalJudge(embedder=None),
        metrics=("faithfulness",),
    )
    assert before.run.calibration == []
    assert "uncalibrated judge" in render_text(ReportInputs(before))
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    store_calibration(
        calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=100)
    )
    after = run_and_save(
        cases,
        PrecomputedPipeline(),
        Settings(),
        out_dir=tmp_path / "r2",
        judge=LocalJudge(embedder=None),
        metrics=("faithfulness",),
    )
    assert [n.metric for n in after.run.calibration] == ["faithfulness"]
    text = render_text(ReportInputs(after))
    assert "faithfulness judge: AUROC" in text
    assert "vs people on" in text


def test_cli_with_openai_judge_against_fake_server(tmp_path, monkeypatch):
    from ragmeter.clients import forget_output_modes

    forget_output_modes()
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    path = tmp_path / "labels.jsonl"
    write_labels(path)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        result = CliRunner().invoke(
            app,
            [
                "calibrate",
                str(path),
                "--judge",
                "openai",
                "--model",
                "judge-m",
                "--base-url",
                server.base_url,
                "--no-cache",
                "--out",
                str(out),
                "--no-progress",
            ],
        )
        calls = server.counts()
    assert result.exit_code == 0, result.output
    assert sum(calls.values()) >= 10
    saved = load_calibration(out)
    assert saved.judge.kind == "openai" and saved.judge.model == "judge-m"
    part = saved.metrics["faithfulness"]
    assert part.n == 10
    assert {m.name for m in part.measures} == {"AUROC", "balanced accuracy", "Cohen's kappa"}
    assert find_calibration(saved.judge) is not None


def test_cli_reports_bad_label_file(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"question": "q", "answer": "a", "labels": {"faithfulness": 2}}\n')
    result = CliRunner().invoke(
        app, ["calibrate", str(path), "--no-progress", "--no-store", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "labels.faithfulness" in result.output and "outside [0, 1]" in result.output


# --- calibrating on a run's cases, with a prediction-powered estimate ----------------------


def lenient_run(n: int = 300, seed: int = 4):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.6
    scores = np.clip(0.4 + 0.55 * truth + rng.normal(0, 0.1, n), 0, 1)
    cases = [case(f"c{i}", {"faithfulness": float(s)}) for i, s in enumerate(scores)]
    fp = JudgeFingerprint(kind="local", model="m", prompt_version="1")
    return run(cases, judge_fp=fp), truth


def test_calibrate_run_gives_agreement_and_ppi(tmp_path):
    result, truth = lenient_run()
    labels = {f"c{i}": {"faithfulness": float(truth[i])} for i in range(0, 300, 5)}
    cal = calibrate_run(result, labels, resamples=100)
    part = cal.metrics["faithfulness"]
    assert part.n == 60 and part.kind == "binary"
    assert {m.name: m.value for m in part.measures}["AUROC"] > 0.95
    est = cal.estimates["faithfulness"]
    assert est.n_labelled == 60 and est.n_unlabelled == 240
    assert est.judge_mean > truth.mean() + 0.1  # raw judge is lenient
    assert est.ci[0] <= truth.mean() <= est.ci[1]


def test_cli_run_mode_writes_estimate_into_the_run_dir(tmp_path, monkeypatch):
    from ragmeter.results import save_run

    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))
    result, truth = lenient_run()
    save_run(result, tmp_path / "run")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "labels": {"faithfulness": int(truth[i])}}) + "\n"
            for i in range(0, 300, 6)
        )
    )
    out = CliRunner().invoke(app, ["calibrate", str(labels), "--run", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    assert "Prediction-powered estimate" in out.output
    saved = load_calibration(tmp_path / "run")
    assert saved.estimates["faithfulness"].n_labelled == 50
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "nope", "labels": {"faithfulness": 1}}) + "\n")
    out = CliRunner().invoke(app, ["calibrate", str(bad), "--run", str(tmp_path / "run")])
    assert out.exit_code == 2 and "1 labelled id is not a case of the run" in out.output


# --- the other scoring of the same verdicts (0/1 share or mean P(supported)) ------------------

# answer (one claim), human label, P of the verdict the fake judge writes: Smart supports the
# first three claims and not the last three, so P(supported) is P, or (1 - P) / 2 otherwise
SCORED_CLAIMS = [
    ("The Eiffel Tower is 330 metres tall.", 1, 0.9),  # supported, P(supported) 0.9
    ("It opened in 1889.", 1, 0.8),  # supported, 0.8
    ("Gustave Eiffel's company built the tower.", 0, 0.6),  # supported, 0.6
    ("Bananas are the main export of Iceland according to Reykjavik officials.", 0, 0.9),  # 0.05
    ("The tower is painted with 60 tonnes of gold by Marconi.", 0, 0.8),  # 0.1
    ("It is nicknamed the Iron Lady.", 1, 0.6),  # not verifiable, 0.2
]
# By hand, AUROC over the 3 x 3 (label 1, label 0) pairs:
# 0/1 scores 1, 1, 0 vs 1, 0, 0: 2 x (0.5 + 1 + 1) + (0 + 0.5 + 0.5) = 6 of 9;
# graded 0.9, 0.8, 0.2 vs 0.6, 0.05, 0.1: 3 + 3 + (0 + 1 + 1) = 8 of 9.
ZERO_ONE_AUROC, GRADED_AUROC = 6 / 9, 8 / 9


def claim_confidence(request, _n):
    """P of the verdict on the request's claim (each case has one)."""
    claims = request.blocks().get("CLAIMS", "")
    return next(p for answer, _, p in SCORED_CLAIMS if answer in claims)


def write_scored_labels(path) -> None:
    rows = [
        {
            "id": f"c{i}",
            "question": "Tell me about the Eiffel Tower.",
            "contexts": [CONTEXT],
            "answer": answer,
            "labels": {"faithfulness": label},
        }
        for i, (answer, label, _) in enumerate(SCORED_CLAIMS)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def calibrate_llm(tmp_path, *, graded: str | None = None, logprobs: str = "yes"):
    """`ragmeter calibrate` with the LLM judge against the fake server: output, saved
    calibration and chat calls."""
    from ragmeter.clients import forget_output_modes

    forget_output_modes()
    labels = tmp_path / "labels.jsonl"
    write_scored_labels(labels)
    out = tmp_path / "out"
    with FakeOpenAI(Smart(), confidence=claim_confidence, logprobs=logprobs) as server:  # type: ignore[arg-type]
        args = ["calibrate", str(labels), "--judge", "openai", "--model", "judge-m"]
        args += ["--base-url", server.base_url, "--no-cache", "--no-store", "--no-progress"]
        args += ["--out", str(out)]
        if graded is not None:
            config = tmp_path / "ragmeter.toml"
            config.write_text(f"[judge]\ngraded = {graded}\n", encoding="utf-8")
            args += ["--config", str(config)]
        result = CliRunner().invoke(app, args)
        calls = len(server.chat_log())
    assert result.exit_code == 0, result.output
    return result.output, load_calibration(out), calls


def auroc_of(measures) -> float:
    return next(m.value for m in measures if m.name == "AUROC")


def test_llm_judge_graded_faithfulness_is_also_measured_as_0_1(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    output, saved, calls = calibrate_llm(tmp_path)  # faithfulness graded by default
    assert calls == 2 * len(SCORED_CLAIMS)  # claims and verdicts per case: nothing extra
    part = saved.metrics["faithfulness"]
    assert part.scoring == "graded"
    assert auroc_of(part.measures) == pytest.approx(GRADED_AUROC)
    alt = part.alternative
    assert alt is not None and alt.scoring == "zero_one"
    assert auroc_of(alt.measures) == pytest.approx(ZERO_ONE_AUROC)
    assert [m.name for m in alt.measures] == [m.name for m in part.measures]
    assert alt.difference is not None and alt.difference.name == "AUROC difference"
    assert alt.difference.value == pytest.approx(ZERO_ONE_AUROC - GRADED_AUROC)
    low, high = alt.difference.ci  # type: ignore[misc]
    assert low <= alt.difference.value <= high
    assert "faithfulness: scored as mean P(supported) over the claims (graded)" in output
    assert (
        "0/1 (share of supported claims) instead: AUROC 0.67 [" in output
        and "] vs 0.89 as scored, difference -0.22 [" in output
    )
    assert "— worse" in output and "keep the current scoring" in output
    assert "set graded" not in output


def test_llm_judge_0_1_faithfulness_is_also_measured_graded(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    output, saved, calls = calibrate_llm(tmp_path, graded="[]")
    assert calls == 2 * len(SCORED_CLAIMS)
    part = saved.metrics["faithfulness"]
    assert part.scoring == "zero_one"
    assert auroc_of(part.measures) == pytest.approx(ZERO_ONE_AUROC)
    assert part.alternative is not None and part.alternative.scoring == "graded"
    assert auroc_of(part.alternative.measures) == pytest.approx(GRADED_AUROC)
    assert "faithfulness: scored as share of supported claims (0/1)" in output
    assert "graded (mean P(supported) over the claims) instead: AUROC 0.89 [" in output
    assert "vs 0.67 as scored, difference +0.22 [" in output
    assert 'set graded = ["faithfulness"] under [judge] to use it' in output
    # the JSON states it as well (a declared field, read back by the model)
    raw = json.loads((tmp_path / "out" / "calibration.json").read_text())
    assert raw["metrics"]["faithfulness"]["alternative"]["scoring"] == "graded"


def test_llm_judge_without_logprobs_has_no_other_scoring(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    output, saved, _ = calibrate_llm(tmp_path, logprobs="ignore")
    part = saved.metrics["faithfulness"]
    assert part.scoring == "zero_one" and part.alternative is None
    assert auroc_of(part.measures) == pytest.approx(ZERO_ONE_AUROC)
    assert (
        "faithfulness: scored as share of supported claims (0/1); graded is set, but no verdict "
        "carried a probability" in output
    )
    assert "instead:" not in output


def test_local_judge_has_no_scoring_choice(tmp_path):
    path = tmp_path / "labels.jsonl"
    write_scored_labels(path)
    result = calibrate(load_labelled_cases(path), LocalJudge(embedder=None), resamples=50)
    part = result.metrics["faithfulness"]
    assert part.scoring is None and part.alternative is None
    assert result.scoring_lines("faithfulness") == []
    # its claims do carry a confidence (an evidence strength), which is not P(supported)
    sample = load_labelled_cases(path)[0].to_case()
    judged = LocalJudge(embedder=None).judge_sync(
        Sample(
            case_id="c0", question=sample.question, contexts=sample.contexts, answer=sample.answer
        ),
        ("faithfulness",),
    )
    assert all(c.confidence is not None for c in judged["faithfulness"].evidence.claims)


# context recall of a stored run: one reference point per case, P of the verdict the fake judge
# writes (Smart finds the first three points in the context: P(supported) is P, else 1 - P)
SCORED_POINTS = [
    ("The Eiffel Tower is 330 metres tall.", 1, 0.9),  # found, P(supported) 0.9
    ("It opened in 1889 in Paris.", 1, 0.7),  # found, 0.7
    ("Gustave Eiffel's company designed and built it.", 0, 0.6),  # found, 0.6
    ("Bananas are exported from Iceland.", 0, 0.95),  # not found, 0.05
    ("Marconi painted it with gold in 1960.", 0, 0.9),  # not found, 0.1
    ("It is nicknamed the Iron Lady.", 1, 0.8),  # not found, 0.2
]


def stored_points(run_dir):
    from ragmeter.results import load_run

    return [p for c in load_run(run_dir).cases for p in c.metrics["context_recall"].evidence.points]


def test_calibrate_run_measures_the_other_scoring_from_stored_evidence(tmp_path, monkeypatch):
    from ragmeter.api import run_and_save
    from ragmeter.cases import Case
    from ragmeter.clients import forget_output_modes
    from ragmeter.config import Settings
    from ragmeter.judges.llm import EmbeddingEndpoint, LLMJudgeConfig, build_llm_judge
    from ragmeter.pipeline import PrecomputedPipeline

    forget_output_modes()
    monkeypatch.setenv("RAGMETER_CACHE_DIR", str(tmp_path / "cache"))

    def confidence(request, _n):
        reference = request.blocks().get("REFERENCE", "")
        return next(p for point, _, p in SCORED_POINTS if point in reference)

    cases = [
        Case(
            id=f"c{i}",
            question="Tell me about the Eiffel Tower.",
            contexts=[CONTEXT],
            answer="It is tall.",
            ground_truth=point,
        )
        for i, (point, _, _) in enumerate(SCORED_POINTS)
    ]
    with FakeOpenAI(Smart(), confidence=confidence) as server:  # type: ignore[arg-type]
        judge = build_llm_judge(
            LLMJudgeConfig(
                model="judge-m",
                base_url=server.base_url,
                api_key_env=None,
                use_cache=False,
                embedding=EmbeddingEndpoint(model="e", base_url=server.base_url, api_key_env=None),
            )
        )
        run_and_save(
            cases,
            PrecomputedPipeline(),
            Settings(),
            out_dir=tmp_path / "run",
            judge=judge,
            metrics=("context_recall",),
        )
    points = stored_points(tmp_path / "run")
    assert [p.supported for p in points] == [True, True, True, False, False, False]
    assert [p.confidence for p in points] == pytest.approx([0.9, 0.7, 0.6, 0.05, 0.1, 0.2])
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "labels": {"context_recall": label}}) + "\n"
            for i, (_, label, _) in enumerate(SCORED_POINTS)
        )
    )
    out = CliRunner().invoke(app, ["calibrate", str(labels), "--run", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    part = load_calibration(tmp_path / "run").metrics["context_recall"]
    assert part.scoring == "zero_one"  # graded is faithfulness only by default
    assert auroc_of(part.measures) == pytest.approx(ZERO_ONE_AUROC)
    assert part.alternative is not None and part.alternative.scoring == "graded"
    assert auroc_of(part.alternative.measures) == pytest.approx(GRADED_AUROC)
    assert "context_recall: scored as share of supported reference points (0/1)" in out.output
    assert "graded (mean P(supported) over the reference points) instead: AUROC 0.89" in out.output
    assert 'set graded = ["context_recall", "faithfulness"] under [judge]' in out.output


def claims_result(score: float, verdicts: list[tuple[str, float | None]]) -> MetricResult:
    claims = [
        ClaimVerdict(claim=f"claim {i}", verdict=v, confidence=p)  # type: ignore[arg-type]
        for i, (v, p) in enumerate(verdicts)
    ]
    return MetricResult(metric="faithfulness", score=score, evidence=Evidence(claims=claims))


def test_mixed_or_unexplained_scores_claim_no_other_scoring():
    llm = JudgeFingerprint(
        kind="openai", model="m", prompt_version="1", params={"graded": ["faithfulness"]}
    )
    graded = case("a", {"faithfulness": 0.6})  # mean P(supported) of its two claims
    graded.metrics["faithfulness"] = claims_result(
        0.6, [("supported", 0.9), ("not_verifiable", 0.3)]
    )
    fallback = case("b", {"faithfulness": 0.5})  # no probabilities: 0/1
    fallback.metrics["faithfulness"] = claims_result(
        0.5, [("supported", None), ("contradicted", None)]
    )
    labels = {"a": {"faithfulness": 1.0}, "b": {"faithfulness": 0.0}}
    mixed = calibrate_run(run([graded, fallback], judge_fp=llm), labels, resamples=20)
    assert mixed.metrics["faithfulness"].scoring == "mixed"
    assert mixed.metrics["faithfulness"].alternative is None
    assert "where the reply gave probabilities" in mixed.scoring_lines("faithfulness")[0]
    # a score that is neither the share nor the mean of its verdicts: nothing is claimed
    odd = case("b", {"faithfulness": 0.5})
    odd.metrics["faithfulness"] = claims_result(0.3, [("supported", 0.9), ("contradicted", 0.1)])
    unexplained = calibrate_run(run([graded, odd], judge_fp=llm), labels, resamples=20)
    assert unexplained.metrics["faithfulness"].scoring is None
    assert unexplained.scoring_lines("faithfulness") == []
    # the same results under a judge without the choice
    local = JudgeFingerprint(kind="local", model="m", prompt_version="1")
    other = calibrate_run(
        run([graded, graded.model_copy(update={"id": "b"})], judge_fp=local), labels, resamples=20
    )
    assert other.metrics["faithfulness"].scoring is None
