"""The `ragmeter` command line: option parsing over the library, no logic of its own."""

# each module registers its commands on `app`
from . import calibrate, compare, demo, gate, generate, lint, report, run, serve, vary  # noqa: F401
from ._app import app

__all__ = ["app"]
