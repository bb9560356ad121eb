"""The `ragmeter` command line: option parsing over the library, no logic of its own.

Each command imports the library inside its function, on purpose: `import ragmeter.cli` reads
21 small modules (about 0.1 s here, measured with `python -X importtime -c "import
ragmeter.cli"`), while the library behind ragmeter.api (pydantic models, httpx, numpy) takes
about 0.7 s more, which `ragmeter --help`, shell completion and a mistyped option should not pay.
Evaluations go through :mod:`ragmeter.api`, the one door.
"""

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
