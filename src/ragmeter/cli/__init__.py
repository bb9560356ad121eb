"""The `ragmeter` command line: option parsing over the library, no logic of its own."""

from . import demo, lint, report, run  # noqa: F401  (each module registers its commands)
from ._app import app

__all__ = ["app"]
