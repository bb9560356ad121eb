"""Test doubles shipped with ragmeter, public as httpx's MockTransport is: an OpenAI-compatible
fake server with fault injection, for testing code that runs ragmeter with an LLM judge offline
(the guide: "Testing your code against a fake judge endpoint", docs/python-api.md).

    with FakeOpenAI(responder=Smart(), faults=[Fault("rate_limit", times=1)]) as server:
        judge = ragmeter.judge("openai", model="fake", base_url=server.base_url)
"""

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
