"""The Agent Module Platform client."""
from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

from ._http import HttpClient, RetryInfo
from .resources import AuditLog, Events, Executions, Invoices, Keys, Members, Memory, Modules, Plans, Usage, Webhooks, Workflows


class Amp:
    """The API's client.

    >>> amp = Amp(api_key="amp_...", base_url="https://amp.example.com")
    >>> amp.modules.execute("text", "slugify", {"text": "Hello World"}).output
    {'slug': 'hello-world'}

    ``bearer_token`` (a user's access token) instead of ``api_key``, with ``tenant_id``
    (``X-Tenant-Id``) to pick one of the user's tenants. ``max_retries`` (default 2) retries a
    429, a 503, a 409 with ``Retry-After`` (an idempotent request still running) and a network
    error; ``timeout`` is per attempt, in seconds.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        bearer_token: Optional[str] = None,
        base_url: str = "http://localhost:3000",
        tenant_id: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        initial_retry_delay: float = 0.5,
        max_retry_delay: float = 60.0,
        headers: Optional[Mapping[str, str]] = None,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
    ) -> None:
        self.http = HttpClient(
            base_url=base_url,
            api_key=api_key,
            bearer_token=bearer_token,
            tenant_id=tenant_id,
            max_retries=max_retries,
            timeout=timeout,
            initial_retry_delay=initial_retry_delay,
            max_retry_delay=max_retry_delay,
            headers=headers,
            on_retry=on_retry,
        )
        self.modules = Modules(self.http)
        self.executions = Executions(self.http)
        self.keys = Keys(self.http)
        self.webhooks = Webhooks(self.http)
        self.memory = Memory(self.http)
        self.workflows = Workflows(self.http)
        self.usage = Usage(self.http)
        self.invoices = Invoices(self.http)
        self.plans = Plans(self.http)
        self.members = Members(self.http)
        self.audit_log = AuditLog(self.http)
        self.events = Events(self.http)

    @property
    def base_url(self) -> str:
        return self.http.base_url

    def me(self, **options: Any) -> Dict[str, Any]:
        """The caller: tenant, plan, limits, and the key's scopes (or the bearer's user)."""
        return self.http.request("GET", "/api/v1/me", **options)

    def arm(self, *, format: str = "openai", query: Optional[str] = None, agent_id: Optional[str] = None, **options: Any) -> Dict[str, Any]:
        """Everything an agent needs in one call (``POST /api/v1/agent/arm``): tenant, plan, limits,
        usage and the tools it may call in an LLM API's format (``openai``, ``anthropic``, ``mcp``)."""
        body = {k: v for k, v in {"format": format, "query": query, "agent_id": agent_id}.items() if v is not None}
        return self.http.request("POST", "/api/v1/agent/arm", body=body, **options)

    def rate_limit(self, **options: Any) -> Dict[str, Any]:
        """The tenant's request-rate pool right now."""
        return self.http.request("GET", "/api/v1/me/rate-limit", **options)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Any other operation: ``amp.request("GET", "/api/v1/me/rate-limit")`` (same retries and errors)."""
        return self.http.request(method, path, **kwargs)
