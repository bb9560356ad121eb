"""Drive headless Chromium over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
JSON messages ended by NUL on file descriptors 3 and 4), with the standard library only: open a
page in a window of a given size, run JavaScript, click with the mouse, press keys, take a
screenshot. The HTML report's browser tests use it where `--dump-dom` cannot act on the page."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

TIMEOUT = 60
"""Seconds to wait for any one message from the browser."""

KEYS = {  # key: (code, Windows virtual key code, text it types)
    "Tab": ("Tab", 9, ""),
    "Enter": ("Enter", 13, "\r"),
    " ": ("Space", 32, " "),
    "Escape": ("Escape", 27, ""),
}


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, profile: Path, width: int = 1280, height: int = 800) -> None:
        assert CHROMIUM is not None
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def pipes_on_3_and_4() -> None:  # in the child, before exec
            # Copied out of the way first: either end may itself be fd 3 or 4.
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)  # dup2 makes them inheritable
            os.dup2(write_end, 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # fds 3 and 4; the parent's own fds are not inheritable
            preexec_fn=pipes_on_3_and_4,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        target = self.send("Target.createTarget", url="about:blank", session=False)
        attached = self.send(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True, session=False
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError, RuntimeError):  # it may be gone already
            self.send("Browser.close", session=False)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if not select.select([self._from_chrome], [], [], TIMEOUT)[0]:
                raise RuntimeError(f"chromium said nothing for {TIMEOUT} s")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        """Run one protocol command and return its result (events met on the way are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") != self._next_id:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result", {})

    def open(self, url: str) -> None:
        """Load `url` afresh and wait until the report's script has run (`data-ready` set)."""
        for address in ("about:blank", url):  # a new fragment alone would not load the page
            self.events.clear()
            self.send("Page.navigate", url=address)
            while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
                self.events.append(self._read())
        assert self.js("document.documentElement.dataset.ready") == "1", self.console()

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression on the page (JSON-able)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"]))
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """The value of `expression` once it is truthy: what a click starts through an event the
        page handles later (a link's `hashchange`) has not happened when the click returns.
        Fails with the last value after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            guarded = f"(function(){{try{{return {expression};}}catch(e){{return null;}}}})()"
            value = self.js(guarded)
            if value or time.monotonic() > deadline:
                assert value, f"still {value!r} after {timeout} s: {expression}"
                return value
            time.sleep(0.02)

    def console(self) -> list[str]:
        """Console messages and uncaught errors the page produced so far."""
        out = []
        for event in self.events:
            if event.get("method") == "Runtime.consoleAPICalled":
                out.append(" ".join(str(a.get("value")) for a in event["params"]["args"]))
            elif event.get("method") == "Runtime.exceptionThrown":
                out.append(str(event["params"]["exceptionDetails"]))
        return out

    def click(self, selector: str) -> None:
        """A left mouse click in the middle of the first element `selector` matches."""
        box = self.js(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});"
            "e.scrollIntoView({block:'center'});var r=e.getBoundingClientRect();"
            "return [r.left + r.width / 2, r.top + r.height / 2];})()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def press(self, key: str) -> None:
        """Press and release one key (a name in KEYS) on whatever has the focus."""
        code, vk, text = KEYS[key]
        common = {"key": key, "code": code, "windowsVirtualKeyCode": vk}
        self.send("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
        self.send("Input.dispatchKeyEvent", type="keyUp", **common)

    def screenshot(self, path: Path) -> Path:
        """The window as it shows now, as a PNG."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path
