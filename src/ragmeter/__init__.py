"""ragmeter: measure RAG pipelines with a judge, so their owners stop tuning by feel."""

from ._version import __version__

__all__ = ["__version__"]
