"""Judge calls follow a redirect only to the host they were sent to.

The HTTP client follows redirects (an endpoint moved from ``/v1`` to ``/v1/``, or from http to
https), and a 307 or 308 sends the request again, prompt and all, wherever ``Location`` says.
:func:`refuse_cross_host_redirect`, a response hook, stops a redirect to another host before it
is followed: the cases' text would go to a server nobody configured.
"""

from __future__ import annotations

from typing import Any

from .._exceptions import JudgeUnavailable
from .._util.redact import redact


async def refuse_cross_host_redirect(response: Any) -> None:
    """httpx response hook: raise :class:`JudgeUnavailable` when `response` redirects to
    another host than the one its request went to (same host, other scheme or port: followed)."""
    if not response.has_redirect_location:
        return
    request = response.request
    target = request.url.join(response.headers["location"])
    if (target.host or "").lower() == (request.url.host or "").lower():
        return
    await response.aclose()
    raise JudgeUnavailable(
        f"the endpoint at {redact(str(request.url.copy_with(query=None)))} redirected "
        f"(HTTP {response.status_code}) to another host, {redact(target.host)}: refused, no "
        "call is sent there; if that host is the endpoint, set --base-url (base_url) to it"
    )


__all__ = ["refuse_cross_host_redirect"]
