"""Test doubles shipped with ragmeter: an OpenAI-compatible fake server with fault injection."""

from .fake_batches import BatchFault
from .fake_openai import FakeOpenAI, Fault, LoggedRequest, hashing_embedding
from .responders import FakeRequest, Responder, Scripted, Smart, schema_valid

__all__ = [
    "BatchFault",
    "FakeOpenAI",
    "FakeRequest",
    "Fault",
    "LoggedRequest",
    "Responder",
    "Scripted",
    "Smart",
    "hashing_embedding",
    "schema_valid",
]
