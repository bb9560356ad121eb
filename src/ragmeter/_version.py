"""Version of ragmeter."""

__version__ = "0.1.0"
