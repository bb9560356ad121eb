"""`ragmeter generate DOCS_DIR -o OUT.jsonl`: an eval set built from a folder of documents."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, fail, make_console, user_errors


@app.command()
def generate(
    docs: Path = typer.Argument(
        ...,
        help="Folder of documents (.md, .txt, .html, and .pdf with pypdf installed; read "
        "recursively).",
    ),
    out: Path = typer.Option(None, "--out", "-o", help="The eval set to write (.jsonl)."),
    n: int = typer.Option(40, "--n", min=1, help="Cases to make (fewer if the documents run out)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every choice (same seed, same set)."),
    lang: str = typer.Option(
        "auto",
        "--lang",
        help="Language of the documents: auto (detected per document), en or zh (forced).",
    ),
    chunk_size: int = typer.Option(
        400, "--chunk-size", min=50, help="Chunk size in display columns (as the demo's)."
    ),
    model: str = typer.Option(
        None,
        "--model",
        "-m",
        help="LLM that writes the questions (any OpenAI-compatible endpoint); without it, the "
        "extractive mode.",
    ),
    llama: bool = typer.Option(
        False,
        "--llama",
        help="Questions written offline by the llama judge's model (llama.cpp in this process; "
        "the llama or llama-small extra); --model then names the bundled model.",
    ),
    model_path: Path = typer.Option(
        None, "--model-path", help="--llama: a GGUF file instead of the bundled model."
    ),
    threads: int = typer.Option(
        None, "--threads", min=1, help="--llama: CPU threads (all cores but one)."
    ),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint URL."),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY",
        "--api-key-env",
        help="Environment variable with the endpoint's API key (none needed on localhost).",
    ),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="LLM call cache location."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the cache."),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a run or a baseline at --out (refused otherwise)."
    ),
) -> None:
    """Build an eval set from a folder of documents: questions with ground truths and the
    chunk they come from.

    Extractive mode (no --model or --llama): sentences of prose become the questions a
    person would ask by templates per language (English, Chinese), the sentence the ground
    truth; a sentence no template fits is skipped and counted by reason. LLM mode (--model):
    one call per chunk asks for questions and ground truths as strict JSON; a chunk without a
    usable reply is skipped and counted. --llama: the same, offline, by the llama judge's
    model in this process (--model names a bundled one, --model-path a GGUF file).
    Categories normal, typo, out_of_scope and multi_turn, a follow-up naming its subject
    with a pronoun.
    One case per line, `metadata.generate` naming the file, the chunk id and the mode. Review
    the questions before use.

    Exit code 0 when written, 2 when the folder or the options are at fault, 5 when the
    endpoint refuses the key or the model.
    """
    from ..generate import generate_extractive, generate_llm, load_documents, write_generated
    from ..report.generate import render_generated, skipped_lines
    from ..results import refuse_overwriting_run

    if llama and base_url is not None:
        fail("--llama serves its own model: drop --base-url (or drop --llama)")
    if not llama and (model_path is not None or threads is not None):
        fail("--model-path and --threads are for the local model: give --llama too")
    llm = llama or model is not None
    if not llm and (base_url is not None or cache_dir is not None or no_cache):
        fail("--base-url, --cache-dir and --no-cache are for the LLM mode: give --model too")
    if out is None:
        fail("give --out FILE.jsonl, the eval set to write")
    if lang not in ("auto", "en", "zh"):
        fail(f"--lang {lang}: choose auto, en or zh")
    with user_errors():
        if out.expanduser().suffix.lower() != ".jsonl":
            fail(f"--out {out}: the eval set is written as JSONL; name it *.jsonl")
        refuse_overwriting_run(out.expanduser(), "--out", overwrite=overwrite)
        documents, skipped_files = load_documents(docs, lang)
        if not documents:
            for line in skipped_lines(skipped_files):
                typer.echo(line, err=True)
            if skipped_files:
                fail(f"{docs}: no document could be read (the files skipped are listed above)")
            fail(f"{docs}: no documents to read (.md, .markdown, .txt, .html, .htm, .pdf)")
        if llama:
            from ..generate.with_llama import generate_server, generate_with_llama

            server = generate_server(model, model_path, threads)
            result = generate_with_llama(
                documents,
                server,
                n=n,
                seed=seed,
                chunk_size=chunk_size,
                cache_path=_cache_path(cache_dir, no_cache),
                use_cache=not no_cache,
            )
        elif model is None:
            result = generate_extractive(documents, n=n, seed=seed, chunk_size=chunk_size)
        else:
            client = _client(model, base_url, api_key_env, cache_dir, no_cache)
            result = generate_llm(documents, client, n=n, seed=seed, chunk_size=chunk_size)
        if not result.cases:
            fail(f"{docs}: no sentence made a question; nothing written")
        write_generated(result.cases, out)
    render_generated(result, out, n, skipped_files, make_console())


def _client(
    model: str, base_url: str | None, api_key_env: str, cache_dir: Path | None, no_cache: bool
) -> object:
    from ..clients import ChatClient, LLMCache

    path = _cache_path(cache_dir, no_cache)
    client = ChatClient(
        model=model,
        base_url=base_url,
        api_key_env=api_key_env or None,
        cache=LLMCache(path),
        use_cache=not no_cache,
    )
    client.prepare()
    return client


def _cache_path(cache_dir: Path | None, no_cache: bool) -> Path | None:
    from ..clients import default_cache_path

    return None if no_cache else (cache_dir / "llm.sqlite" if cache_dir else default_cache_path())
