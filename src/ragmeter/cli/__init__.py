"""The `ragmeter` command line: option parsing over the library, no logic of its own."""

# each module registers its commands on `app`
from . import (  # noqa: F401
    calibrate,
    compare,
    demo,
    gate,
    generate,
    lint,
    merge,
    report,
    run,
    serve,
    vary,
)
from ._app import app

__all__ = ["app"]
