"""Model code running in daemon threads, waited for when the interpreter exits.

While Python finalizes (CPython 3.11 to 3.13), a daemon thread that asks for the GIL back is
ended with ``pthread_exit``, which unwinds the thread's C++ frames. A thread returning from
onnxruntime (loading a session, or running one) unwinds through pybind11's GIL guard, a
``noexcept`` destructor, and the process dies with ``std::terminate`` ("terminate called
without an active exception", SIGABRT) instead of exiting with its own status: Ctrl-C during a
model load turned exit 130 into -6. So the model work that runs in daemon threads is wrapped
in :func:`native_call`, and an ``atexit`` handler waits (at most ``EXIT_WAIT_SECONDS``) for the
calls under way to return before finalization begins; a call that would start after that
parks its thread instead, which the process's exit then ends. A second Ctrl-C while waiting
exits at once with status 130.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

EXIT_WAIT_SECONDS = 30.0
"""The longest the interpreter's exit waits for model calls under way (a load takes ~2 s)."""

_INTERRUPTED_STATUS = 130

_state = threading.Condition()
_running = 0
_exiting = False


@contextmanager
def native_call() -> Iterator[None]:
    """Mark the block as model code the interpreter's exit must wait for.

    Once exit has begun the block does not start in a daemon thread: the thread parks until
    the process is gone (nobody waits for its result then). Other threads run it."""
    global _running
    with _state:
        park = _exiting and threading.current_thread().daemon
    if park:
        threading.Event().wait()  # never set: the process's exit ends this thread
    with _state:
        _running += 1
    try:
        yield
    finally:
        with _state:
            _running -= 1
            _state.notify_all()


def calls_running() -> int:
    """How many model calls are under way in this process."""
    with _state:
        return _running


def wait_for_native_calls(timeout: float = EXIT_WAIT_SECONDS) -> bool:
    """Stop new model calls from starting and wait for those under way; whether they all
    returned within ``timeout`` seconds. Registered with ``atexit``."""
    global _exiting
    try:
        with _state:
            _exiting = True
            return _state.wait_for(lambda: _running == 0, timeout)
    except KeyboardInterrupt:  # a second Ctrl-C: stop now, without finalizing
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        os._exit(_INTERRUPTED_STATUS)


atexit.register(wait_for_native_calls)
