"""A pipeline that exits (sys.exit, an argparse error, KeyboardInterrupt, os._exit): the run
still ends, its case unscored with the reason, and nothing already judged is lost (issue 30)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragmeter.results import CaseResult

PARTIAL_FILE = "results.partial.jsonl"  # as the README names it
RAGMETER = str(Path(sys.executable).parent / "ragmeter")
GUARD = 120  # seconds a child may take before the test gives up on it (it hung)

EXITING_RAG = """
    import argparse, asyncio, json, os, pathlib, sys, time

    def answer(question, history):
        if question == "Question 1?":
            sys.exit(2)
        if question == "Question 2?":
            argparse.ArgumentParser(prog="rag").parse_args(["--no-such-option"])
        if question == "Question 3?":
            raise KeyboardInterrupt
        return {"contexts": ["Refunds are accepted within 30 days."], "answer": "30 days."}

    async def answer_async(question, history):
        await asyncio.sleep(0)
        return answer(question, history)

    POOL = None

    def answer_leaving_threads(question, history):
        global POOL
        if question == "Question 0?":
            raise RuntimeError("index missing")
        if question == "Question 1?":
            import concurrent.futures, threading
            POOL = concurrent.futures.ThreadPoolExecutor(1)
            POOL.submit(time.sleep, 3600)  # joined at exit, for ever
            indexer = threading.Thread(target=time.sleep, args=(3600,), name="rag-indexer")
            indexer.daemon = False
            indexer.start()
        return {"contexts": ["Refunds are accepted within 30 days."], "answer": "30 days."}

    def answer_ok(question, history):
        return {"contexts": ["Refunds are accepted within 30 days."], "answer": "30 days."}

    def answer_then_die(question, history):
        if question == "Question 4?":
            # Once the first cases are judged, leave the way no Python code can catch.
            partial = pathlib.Path("out", "results.partial.jsonl")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if partial.exists() and len(partial.read_bytes().splitlines()) >= 2:
                    break
                time.sleep(0.05)
            os._exit(0)
        return {"contexts": ["Refunds are accepted within 30 days."], "answer": "30 days."}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"q{i}", "question": f"Question {i}?", "ground_truth": "30 days."})
            for i in range(5)
        )
    )
    (tmp_path / "exiting_rag.py").write_text(textwrap.dedent(EXITING_RAG))
    return tmp_path


def ragmeter_run(project: Path, pipeline: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`ragmeter run` in a child process; one still running after GUARD seconds hung."""
    return subprocess.run(
        [RAGMETER, "run", "--cases", "cases.jsonl", "--pipeline", pipeline, "--no-progress", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(project), *sys.path])},
        capture_output=True,
        text=True,
        timeout=GUARD,  # before: the run hung for ever, Ctrl-C and --timeout included
        check=False,
    )


@pytest.mark.parametrize("function", ["answer", "answer_async"])
def test_a_pipeline_that_exits_leaves_its_case_unscored_with_the_reason(
    project: Path, function: str
) -> None:
    spec = f"exiting_rag:{function}"
    done = ragmeter_run(project, spec, "--out", "out", "--timeout", "60")
    assert done.returncode == 3, done.stderr  # 2 of 5 cases scored: under the 90% needed
    cases = {c["id"]: c for c in json.loads((project / "out/results.json").read_text())["cases"]}
    expected = {
        "q1": f"pipeline {spec} raised SystemExit(2)",
        "q2": f"pipeline {spec} raised SystemExit(2)",  # argparse exits with 2
        "q3": f"pipeline {spec} raised KeyboardInterrupt",
    }
    for case_id, error in expected.items():
        assert cases[case_id]["pipeline_error"] == error
        for result in cases[case_id]["metrics"].values():
            assert result["score"] is None
            assert result["unscored_reason"] == f"pipeline error: {error}"
            assert result["reason_code"] == "pipeline_error"
    for case_id in ("q0", "q4"):
        assert cases[case_id]["pipeline_error"] is None
        assert cases[case_id]["metrics"]["context_recall"]["score"] is not None
    assert "raised SystemExit(2) (2 cases: q1, q2)" in done.stderr
    for reason in expected.values():  # the report's table of unscored causes
        assert reason in done.stdout
    assert not (project / "out" / PARTIAL_FILE).exists()  # the run ended: no journal left


def test_a_module_that_exits_when_imported_is_a_clear_input_error(project: Path) -> None:
    (project / "script_rag.py").write_text(
        "import argparse\n"
        "args = argparse.ArgumentParser(prog='script_rag').parse_args()  # reads our argv\n"
        "def answer(question, history):\n"
        "    return {'contexts': [], 'answer': ''}\n"
    )
    done = ragmeter_run(project, "script_rag:answer", "--out", "out")
    assert done.returncode == 2  # bad input, checked before any work
    assert (
        "error: importing 'script_rag' for pipeline 'script_rag:answer' raised SystemExit(2); "
        "the module exits when imported: keep its argparse or sys.exit under "
        "`if __name__ == '__main__':`"
    ) in " ".join(done.stderr.split())
    assert not (project / "out").exists()


def test_a_pipeline_object_or_judge_that_exits_costs_its_case_only(tmp_path: Path) -> None:
    script = """
        import sys
        import ragmeter
        from ragmeter.cases import Case
        from ragmeter.pipeline import PipelineOutput
        from ragmeter.vocabulary import JudgeFingerprint, MetricResult

        class ExitingPipeline:
            name = "exiting"

            async def run(self, case):
                if case.id == "exits":
                    sys.exit("index missing")
                if case.id == "interrupted":
                    raise KeyboardInterrupt
                return PipelineOutput(contexts=["Refunds within 30 days."], answer="30 days.")

        class ExitingJudge:
            name = "exiting-judge"

            def fingerprint(self):
                return JudgeFingerprint(kind="exiting", model="none", prompt_version="1")

            async def judge(self, sample, metrics):
                if sample.case_id == "judge-exits":
                    sys.exit(3)
                return {m: MetricResult(metric=m, score=1.0) for m in metrics}

        ids = ["ok", "exits", "interrupted", "judge-exits"]
        cases = [Case(id=i, question=f"Question {i}?", ground_truth="30 days.") for i in ids]
        run = ragmeter.evaluate(cases, ExitingPipeline(), ExitingJudge(), min_scored_share=0)
        for case in run.cases:
            print(case.id, "|", case.pipeline_error, "|", case.metrics["faithfulness"].score,
                  "|", case.metrics["faithfulness"].unscored_reason)
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=GUARD,  # before: the event loop's thread died and evaluate waited for ever
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "ok | None | 1.0 | None",
        "exits | SystemExit('index missing') | None | pipeline error: SystemExit('index missing')",
        "interrupted | KeyboardInterrupt | None | pipeline error: KeyboardInterrupt",
        "judge-exits | None | None | judge error: SystemExit(3)",
    ]


def test_os_exit_in_a_pipeline_keeps_the_cases_judged_before_it(project: Path) -> None:
    out = project / "out"
    first = ragmeter_run(project, "exiting_rag:answer_ok", "--out", "out")
    assert first.returncode == 0, first.stderr
    earlier = (out / "results.json").read_bytes()
    killed = ragmeter_run(project, "exiting_rag:answer_then_die", "--out", "out", "--overwrite")
    # os._exit ends the process on the spot with the code it is given: nothing can catch it.
    assert killed.returncode == 0
    assert (out / "results.json").read_bytes() == earlier  # never half-written
    kept = [CaseResult.model_validate_json(line) for line in (out / PARTIAL_FILE).open("rb")]
    assert len(kept) >= 2  # q4's pipeline waited for two judged cases before it exited
    assert {case.id for case in kept} <= {"q0", "q1", "q2", "q3"}
    for case in kept:
        assert case.pipeline_error is None and case.answer == "30 days."
        assert case.metrics["context_recall"].score is not None
    # The earlier results no longer pass for the run's: the gate cannot read them as is.
    gate = subprocess.run(
        [RAGMETER, "gate", "out"], cwd=project, capture_output=True, text=True, timeout=GUARD
    )
    assert gate.returncode == 2
    assert "was killed before it finished (results.partial.jsonl holds its cases)" in (
        " ".join(gate.stderr.split())
    )
    # Nor does the next run overwrite the cases kept unasked.
    again = ragmeter_run(project, "exiting_rag:answer", "--out", "out")
    assert again.returncode == 2
    assert "holds the cases of a run whose process was killed (out/results.partial.jsonl)" in (
        " ".join(again.stderr.split())
    )
    assert len((out / PARTIAL_FILE).read_bytes().splitlines()) == len(kept)


def test_threads_a_pipeline_leaves_running_do_not_hold_the_exit(project: Path) -> None:
    done = ragmeter_run(project, "exiting_rag:answer_leaving_threads", "--out", "out")
    # Before: results written and report printed, then Python's exit waited on them for ever.
    assert done.returncode == 3, done.stderr  # the run's own code: 4 of 5 cases scored
    assert "results written to out/results.json" in done.stdout
    assert "raised RuntimeError: index missing" in done.stdout
    warning = " ".join(done.stderr.split())
    assert "warning: exiting without waiting for" in warning
    assert "ThreadPoolExecutor-0_0" in warning and "rag-indexer" in warning
    cases = json.loads((project / "out/results.json").read_text())["cases"]
    assert [c["pipeline_error"] is None for c in cases] == [False, True, True, True, True]
