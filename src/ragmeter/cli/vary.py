"""`ragmeter vary`: metamorphic variants of an eval set, and `ragmeter vary check RUN`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ._app import app, fail, make_console, user_errors
from .options import FormatOpt, LegacyJsonOpt, OutputFormat, wants_json

vary_app = typer.Typer(
    name="vary",
    invoke_without_command=True,
    rich_markup_mode="rich",
)
app.add_typer(vary_app, name="vary")


@vary_app.callback()
def vary(
    ctx: typer.Context,
    cases: Path = typer.Option(None, "--cases", "-c", help="Eval set (JSONL, JSON, YAML, CSV)."),
    out: Path = typer.Option(None, "--out", "-o", help="The varied eval set to write (.jsonl)."),
    kinds: list[str] = typer.Option(
        None,
        "--kinds",
        help="Variants to make: comma-separated or repeated; of typo, distractor, shuffle, "
        "out_of_scope (default: all four, each where it applies).",
    ),
    seed: int = typer.Option(
        0, "--seed", help="Seed of every random choice (same seed, same set)."
    ),
    answers: Path = typer.Option(
        None,
        "--answers",
        "-a",
        help="Contexts and answers for the eval set's cases: a run (its directory or "
        "results.json) or an answers file. Written into every case, so distractor and shuffle "
        "apply and the varied set runs without a pipeline.",
    ),
    limit: int = typer.Option(
        None, "--limit", min=1, help="At most N variants of each kind (origins picked by the seed)."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a run or a baseline at --out (refused otherwise)."
    ),
) -> None:
    """Metamorphic variants of an eval set, with the direction each metric should move.

    Writes a new eval set: every case followed by its variants (`<id>~typo`, `~distractor`,
    `~shuffle`, `~out_of_scope`), each with its origin, kind and the expected direction of
    every metric under `metadata.vary`. Run it like any eval set, then `ragmeter vary check
    RUN` says which expectations the pipeline and judge broke.

    Exit code 0 when written, 2 when the eval set, --answers or the options are at fault.
    """
    if ctx.invoked_subcommand is not None:
        if cases or out or kinds or answers or limit or overwrite:
            fail(f"`vary {ctx.invoked_subcommand}` takes its own options; give them after it")
        return
    if cases is None and out is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()
    if cases is None or out is None:
        fail("give both --cases FILE and --out FILE.jsonl (or `ragmeter vary check RUN`)")
    from ..cases import load_cases
    from ..results import refuse_overwriting_run
    from ..vary import attach_outputs, load_outputs, parse_kinds, vary_cases, write_cases

    with user_errors():
        chosen = parse_kinds(kinds)
        if out.expanduser().resolve() == cases.expanduser().resolve():
            fail(f"--out {out}: that is the eval set itself; write the varied set elsewhere")
        refuse_overwriting_run(out.expanduser(), "--out", overwrite=overwrite)
        eval_cases = load_cases(cases)
        if answers is not None:
            eval_cases = attach_outputs(eval_cases, load_outputs(answers), source=str(answers))
        variation = vary_cases(eval_cases, chosen, seed=seed, limit=limit, source=str(cases))
        write_cases(variation.cases, out)
    from ..report.vary import render_variation

    render_variation(variation, out, make_console())


@vary_app.command()
def check(
    run: Path = typer.Argument(
        ..., help="A run over a varied eval set (directory or results.json)."
    ),
    tolerance: float = typer.Option(
        0.1,
        "--tolerance",
        min=0.0,
        max=0.99,
        help="How far a score may move and still count as the expected 'same' (and how far "
        "past 'up or same' / 'down or same' it may go).",
    ),
    fail_on_broken: bool = typer.Option(
        False, "--fail-on-broken", help="Exit 1 when any expectation broke."
    ),
    output_format: FormatOpt = OutputFormat.text,
    legacy_json: LegacyJsonOpt = False,
    max_broken: int = typer.Option(20, "--limit", min=0, help="Broken pairs to list."),
) -> None:
    """Check a run over a varied eval set: which expected directions held and which broke.

    Pairs each variant of RUN with its origin: a table of variant kind x metric (expected,
    pairs, held, broke, unscored, not checked), then the broken pairs, largest move first.
    Unscored pairs are counted as unscored, never as held.

    Exit code 0 (1 with --fail-on-broken when an expectation broke), 2 when the run cannot be
    loaded or holds no variants.
    """
    as_json = wants_json(output_format, legacy_json)
    from ..vary.check import load_check

    with user_errors():
        result = load_check(run, tolerance=tolerance)
    if as_json:
        from .._util.safe_text import json_escaped

        text = json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2)
        typer.echo(json_escaped(text))
    else:
        from ..report.vary import render_vary_check

        render_vary_check(result, make_console(), max_broken=max_broken)
    raise typer.Exit(result.exit_code(fail_on_broken))
