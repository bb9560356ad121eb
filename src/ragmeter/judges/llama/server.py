"""A llama.cpp server in this process (``xllamacpp``), OpenAI-compatible, on 127.0.0.1."""

from __future__ import annotations

import os
import socket
from types import TracebackType
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..._exceptions import ConfigError
from .models import ModelFile

INSTALL_HINT = "pip install 'ragmeter[llama]'"


def default_threads() -> int:
    """The cores this process may run on that nothing else is using when the server starts
    (`idle_cores`): llama.cpp's threads wait for each other at every layer, so one descheduled
    thread stalls them all. On two cores busy with other work (load average 6) a 28-token
    verdict took 1.5 s with one thread and 6.1 s with two (bench/llama_prefill.py); on the
    idle machine two threads judged the demo cases in half the time one took."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average: leave a core to the rest
        return max(1, cores - 1)
    return idle_cores(cores, load)


def idle_cores(cores: int, load: float) -> int:
    """`cores` less those the 1-minute load average `load` keeps busy (rounded), at least one:
    every core on an idle machine, one on a busy one."""
    return max(1, min(cores, cores - int(load + 0.5)))


Threads = Annotated[int, Field(ge=1)]
"""CPU threads of the server: one or more."""
CtxSize = Annotated[int, Field(ge=512)]
"""Tokens of context per slot: 512 or more."""
Slots = Annotated[int, Field(ge=1)]
"""Calls the server decodes at once: one or more."""
MaxTokens = Annotated[int, Field(ge=16)]
"""The reply cap: 16 tokens or more."""


class ServerOptions(BaseModel):
    """How the llama.cpp server runs (the ``[judge]`` keys ``threads``, ``ctx_size``,
    ``parallel``)."""

    model_config = ConfigDict(extra="forbid")

    threads: Threads = Field(default_factory=default_threads)
    """CPU threads for prompt processing and generation (default: every idle core, at least
    one)."""
    ctx_size: CtxSize = 4096
    """Tokens of context per slot (prompt and reply of one call)."""
    parallel: Slots = 1
    """Slots: calls decoded at the same time (more throughput, more memory)."""
    max_tokens: MaxTokens = 512
    """Longest reply when a call sets no limit, so a looping small model stops."""
    port: int = Field(default=0, ge=0, le=65535)
    """TCP port on 127.0.0.1; 0 picks a free one."""


class LlamaServer:
    """``xllamacpp.Server`` serving ``model``: ``start()`` loads it (seconds), ``close()``
    stops it. A context manager too."""

    def __init__(self, model: ModelFile, options: ServerOptions | None = None) -> None:
        self.model = model
        self.options = options or ServerOptions()
        self._server: Any = None
        self._address = ""

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, ``http://127.0.0.1:PORT/v1``."""
        if self._server is None:
            raise RuntimeError("the llama server is not running")
        return f"{self._address}/v1"

    def start(self) -> str:
        """Load the model and listen; returns :attr:`base_url`. Raises :class:`ConfigError`
        when the extra is missing, the port is taken or the file cannot be loaded."""
        if self._server is not None:
            return self.base_url
        try:
            import xllamacpp
        except ImportError:
            raise ConfigError(
                f"the llama judge needs the llama.cpp server: {INSTALL_HINT}"
            ) from None
        opts = self.options
        if opts.port:
            _check_port_free(opts.port)
        params = xllamacpp.CommonParams()
        params.model.path = str(self.model.path)
        params.model_alias = {self.model.model_id}
        params.hostnames = ["127.0.0.1"]
        params.port = opts.port
        params.n_parallel = opts.parallel
        params.n_ctx = opts.ctx_size * opts.parallel  # llama.cpp splits it between the slots
        params.n_predict = opts.max_tokens
        params.cpuparams.n_threads = opts.threads
        params.cpuparams_batch.n_threads = opts.threads
        params.cache_ram_mib = 512  # prompt-prefix cache in RAM; llama.cpp's default is 8 GiB
        params.ui = False
        params.warmup = False
        params.verbosity = 0
        try:
            self._server = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ConfigError(
                f"{self.model.path}: llama.cpp could not load this model ({exc}); "
                f"check that it is a complete GGUF file of a model llama.cpp supports"
            ) from None
        self._address = str(self._server.listening_address).rstrip("/")
        return self.base_url

    def close(self) -> None:
        """Stop serving and free the model; safe to call twice."""
        # xllamacpp stops the server and frees the model when the object is released.
        self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _check_port_free(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            raise ConfigError(
                f"port {port} on 127.0.0.1 is in use: pass another --port (0 for any free one)"
            ) from None
