"""`ragmeter serve-judge`: the llama judge's server on its own, for other runs and tools."""

from __future__ import annotations

import shlex

import typer

from ._app import app, user_errors
from .options import ConfigOpt, CtxSizeOpt, ModelPathOpt, ParallelOpt, ThreadsOpt

DEFAULT_PORT = 8177
"""A fixed default keeps the URL, and so the call cache, the same from one start to the next."""


@app.command("serve-judge")
def serve_judge(
    model: str = typer.Option(
        None, "--model", "-m", help="Bundled model: qwen2.5-coder-1.5b (default) or -0.5b."
    ),
    model_path: ModelPathOpt = None,
    threads: ThreadsOpt = None,
    ctx_size: CtxSizeOpt = None,
    parallel: ParallelOpt = None,
    port: int = typer.Option(
        DEFAULT_PORT, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free one)."
    ),
    config: ConfigOpt = None,
) -> None:
    """Serve the llama judge's model on 127.0.0.1 until Ctrl-C, for other runs and tools.

    Prints the OpenAI-compatible base URL and the `ragmeter run` line that judges with it.
    Defaults come from the `\\[judge]` table of ragmeter.toml when its kind is `llama`.
    """
    from .. import api
    from ..config import load_settings
    from ..judges.llama import LlamaServer, ServerOptions, resolve_model

    with user_errors():
        judge = load_settings(config).judge
        # a llama table is checked as the llama judge checks it; another judge's is not ours
        checked = api.check_judge_settings(judge) if judge.kind == "llama" else None
        stored = checked.model_dump() if checked is not None else {}
        chosen = {
            "threads": threads or stored.get("threads"),
            "ctx_size": ctx_size or stored.get("ctx_size"),
            "parallel": parallel or stored.get("parallel"),
        }
        options = ServerOptions(port=port, **{k: v for k, v in chosen.items() if v is not None})
        file = resolve_model(model or stored.get("model"), model_path or stored.get("model_path"))
        server = LlamaServer(file, options)
        typer.echo(f"loading {file.path} …", err=True)
        base_url = server.start()
    command = [
        "ragmeter", "run", "--cases", "CASES", "--answers", "ANSWERS", "--out", "DIR",
        "--judge", "openai", "--base-url", base_url, "--model", file.model_id,
        "--judge-concurrency", str(options.parallel),
    ]  # fmt: skip
    typer.echo(f"serving {file.model_id} at {base_url}")
    typer.echo(
        f"  sha256 {file.sha256}; threads {options.threads}, slots {options.parallel} of "
        f"{options.ctx_size} tokens"
    )
    typer.echo(f"judge with it:\n  {shlex.join(command)}")
    typer.echo("Ctrl-C stops it.")
    _wait_for_stop()
    server.close()
    typer.echo(f"stopped serving {file.model_id} at {base_url}")


def _wait_for_stop() -> None:
    """Block until Ctrl-C (SIGINT) or SIGTERM."""
    import signal
    import threading

    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
