"""Running an evaluation: a pipeline and a judge over every case (`_runner`: concurrency, no
case dropped, a run record assembled the one way), eval sets split into shards and merged back
(`shard`), texts too long to judge (`limits`), and calibration runs of the judge over labelled
cases (`calibrate`). :mod:`ragmeter.api` is the door into this package; nothing here is
called by the command line or the pytest plugin directly.
"""

from ._runner import assemble_run, build_sample, judge_cases

__all__ = ["assemble_run", "build_sample", "judge_cases"]
