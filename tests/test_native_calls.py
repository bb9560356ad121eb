"""The interpreter's exit waits for model calls running in daemon threads (`_native_calls`):
exiting in the middle of an onnxruntime session load used to abort the process (SIGABRT,
"terminate called without an active exception") instead of exiting with its own status."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ragmeter.embeddings import local_embedder_status
from ragmeter.embeddings.minilm import local_embedder_expected


def _python(code: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_exit_waits_for_a_model_call_under_way_in_a_daemon_thread(tmp_path: Path) -> None:
    proc = _python(
        """
        import pathlib, sys, threading, time
        from ragmeter._util.native_calls import native_call

        started = threading.Event()

        def load():
            with native_call():
                started.set()
                time.sleep(1.0)
                pathlib.Path("returned").touch()

        threading.Thread(target=load, daemon=True).start()
        started.wait()
        sys.exit(130)
        """,
        tmp_path,
    )
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert (tmp_path / "returned").exists()  # without the wait the daemon dies mid-call


def test_a_model_call_a_daemon_thread_starts_after_exit_began_does_not_run(
    tmp_path: Path,
) -> None:
    proc = _python(
        """
        import pathlib, threading
        from ragmeter._util.native_calls import native_call, wait_for_native_calls

        assert wait_for_native_calls(timeout=1.0)  # what atexit calls: exit has begun

        def late():
            with native_call():
                pathlib.Path("ran").touch()

        daemon = threading.Thread(target=late, daemon=True)
        daemon.start()
        daemon.join(0.5)
        print("parked" if daemon.is_alive() else "ran")
        with native_call():  # not a daemon thread: it runs
            pathlib.Path("main ran").touch()
        """,
        tmp_path,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip() == "parked"
    assert not (tmp_path / "ran").exists() and (tmp_path / "main ran").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_a_second_ctrl_c_while_exit_waits_stops_at_once_with_status_130(tmp_path: Path) -> None:
    proc = _python(
        """
        import sys, threading, time
        from ragmeter._util.native_calls import native_call

        started = threading.Event()

        def stuck():
            with native_call():
                started.set()
                time.sleep(120)

        threading.Thread(target=stuck, daemon=True).start()
        started.wait()
        print("exiting", flush=True)
        sys.exit(130)
        """,
        tmp_path,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "exiting"
    time.sleep(0.5)
    assert proc.poll() is None  # the exit waits for the stuck call
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _out, err = proc.communicate(timeout=60)
    assert time.monotonic() - started < 10  # not the 30 s the wait allows
    assert proc.returncode == 130, err
    assert "Traceback" not in err


@pytest.mark.skipif(not local_embedder_expected(), reason=local_embedder_status())
def test_exiting_while_minilm_loads_in_the_background_keeps_the_exit_status(
    tmp_path: Path,
) -> None:
    """The real case: `prefetch` loads MiniLM (an onnxruntime session) in a daemon thread, and
    the process exits while the session is being made. Objects closed at exit that let the
    GIL go (files, connections) give the loading thread its chance to take the GIL back
    during finalization: without the wait, that aborted the process every time."""
    proc = _python(
        """
        import sys, threading, time
        import onnxruntime.capi.onnxruntime_inference_collection as collection
        from ragmeter.embeddings.similarity import LocalSimilarity

        entered = threading.Event()

        class Session(collection.C.InferenceSession):  # marks the start of the C++ load
            def __init__(self, *args):
                entered.set()
                super().__init__(*args)

        collection.C.InferenceSession = Session

        class ClosesSlowly:  # as a file or a connection closed at exit
            def __del__(self):
                time.sleep(0.01)

        keep = [ClosesSlowly() for _ in range(200)]
        LocalSimilarity().prefetch("en")
        assert entered.wait(60)
        sys.exit(130)
        """,
        tmp_path,
    )
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "terminate called" not in err
