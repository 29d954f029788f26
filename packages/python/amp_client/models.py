"""Typed records of the API's main resources. Each is a dataclass of the fields the OpenAPI
document names; ``raw`` keeps the whole JSON object (fields added later, or an operation's
extra fields), and ``record["field"]`` reads from it."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, Type, TypeVar

from .errors import AmpError

T = TypeVar("T")
M = TypeVar("M", bound="Model")

__all__ = [
    "Model",
    "Module",
    "ExecutionResult",
    "Execution",
    "ApiKey",
    "ApiKeyWithSecret",
    "Webhook",
    "WebhookEnvelope",
    "MemoryEntry",
    "Workflow",
    "WorkflowRun",
    "Invoice",
    "Member",
    "AuditLogEntry",
    "Page",
]


@dataclass
class Model:
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls: Type[M], data: Dict[str, Any]) -> M:
        names = {f.name for f in dataclasses.fields(cls) if f.name != "raw"}
        return cls(raw=dict(data), **{k: v for k, v in data.items() if k in names})

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)


@dataclass
class Module(Model):
    name: str = ""
    title: Optional[str] = None
    description: Optional[str] = None
    version: Optional[str] = None
    category: Optional[str] = None
    tags: List[str] = field(default_factory=list)
    actions: List[Dict[str, Any]] = field(default_factory=list)
    installed: Optional[bool] = None
    publisher: Optional[str] = None
    runtime: Optional[str] = None
    visibility: Optional[str] = None
    trust_score: Optional[float] = None
    certification_tier: Optional[str] = None
    definition_hash: Optional[str] = None


@dataclass
class ExecutionResult(Model):
    """The answer of ``modules.execute``."""

    execution_id: str = ""
    module: str = ""
    action: str = ""
    status: str = ""
    output: Any = None
    latency_ms: Optional[int] = None
    request_id: Optional[str] = None


@dataclass
class Execution(Model):
    """An execution record (``executions.list`` / ``executions.get``)."""

    execution_id: str = ""
    module: str = ""
    action: str = ""
    status: str = ""
    tenant_id: Optional[str] = None
    source: Optional[str] = None
    error: Any = None
    latency_ms: Optional[int] = None
    input_bytes: Optional[int] = None
    output_bytes: Optional[int] = None
    request_id: Optional[str] = None
    created_at: Optional[str] = None
    finished_at: Optional[str] = None


@dataclass
class ApiKey(Model):
    key_id: str = ""
    name: Optional[str] = None
    prefix: Optional[str] = None
    scopes: List[str] = field(default_factory=list)
    policy: Optional[Dict[str, Any]] = None
    primary: Optional[bool] = None
    suspended: Optional[bool] = None
    created_at: Optional[str] = None
    last_used_at: Optional[str] = None
    rotated_at: Optional[str] = None


@dataclass
class ApiKeyWithSecret(Model):
    """A created or rotated key: ``api_key`` is its secret, shown once."""

    key_id: str = ""
    api_key: str = ""
    name: Optional[str] = None
    scopes: List[str] = field(default_factory=list)
    policy: Optional[Dict[str, Any]] = None
    created_at: Optional[str] = None
    rotated_at: Optional[str] = None
    previous_key_expires_at: Optional[str] = None


@dataclass
class Webhook(Model):
    id: str = ""
    kind: Optional[str] = None
    url: Optional[str] = None
    events: List[str] = field(default_factory=list)
    status: Optional[str] = None
    secret: Optional[str] = None
    filter: Optional[str] = None
    headers: Optional[Dict[str, str]] = None
    consecutive_failures: Optional[int] = None
    failure_alert_threshold: Optional[int] = None
    rate_limit_per_second: Optional[float] = None
    suspended: Optional[bool] = None
    failing_since: Optional[str] = None
    disabled_at: Optional[str] = None
    previous_secret_expires_at: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


@dataclass
class WebhookEnvelope(Model):
    """The body of a delivery, a poll message and a streamed event: ``{id, event, timestamp, data}``."""

    id: str = ""
    event: str = ""
    timestamp: str = ""
    data: Any = None


@dataclass
class MemoryEntry(Model):
    agent_id: str = ""
    key: str = ""
    value: Any = None
    tags: List[str] = field(default_factory=list)
    expires_at: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


@dataclass
class Workflow(Model):
    id: str = ""
    name: str = ""
    description: Optional[str] = None
    steps: List[Dict[str, Any]] = field(default_factory=list)
    version: Optional[int] = None
    schedule: Optional[str] = None
    next_run_at: Optional[str] = None
    on: Optional[Dict[str, Any]] = None
    concurrency: Optional[Dict[str, Any]] = None
    throttle: Optional[Dict[str, Any]] = None
    debounce: Optional[Dict[str, Any]] = None
    priority: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


@dataclass
class WorkflowRun(Model):
    run_id: str = ""
    workflow_id: Optional[str] = None
    workflow_version: Optional[int] = None
    origin: Optional[Dict[str, Any]] = None
    status: Optional[str] = None
    input: Any = None
    output: Any = None
    error: Any = None
    steps: Optional[List[Dict[str, Any]]] = None
    created_at: Optional[str] = None
    started_at: Optional[str] = None
    finished_at: Optional[str] = None


@dataclass
class Invoice(Model):
    id: str = ""
    number: Optional[str] = None
    tenant_id: Optional[str] = None
    status: Optional[str] = None
    currency: Optional[str] = None
    subtotal_usd: Optional[str] = None
    total_usd: Optional[str] = None
    lines: List[Dict[str, Any]] = field(default_factory=list)
    billed_to: Any = None
    period_start: Optional[str] = None
    period_end: Optional[str] = None
    pdf_url: Optional[str] = None
    created_at: Optional[str] = None
    due_at: Optional[str] = None
    paid_at: Optional[str] = None
    voided_at: Optional[str] = None


@dataclass
class Member(Model):
    user_id: str = ""
    email: Optional[str] = None
    role: Optional[str] = None
    joined_at: Optional[str] = None


@dataclass
class AuditLogEntry(Model):
    id: str = ""
    at: Optional[str] = None
    action: str = ""
    actor: Any = None
    target: Any = None
    changes: Any = None
    ip: Optional[str] = None
    user_agent: Optional[str] = None
    request_id: Optional[str] = None


class Page(Generic[T]):
    """One page of a list: ``data``, ``has_more``, ``next_cursor`` and the whole ``body``.

    Iterating a page walks this page and every later one (following ``next_cursor`` while
    ``has_more``); ``next_page()`` fetches the next page alone.
    """

    def __init__(self, body: Dict[str, Any], convert: Callable[[Dict[str, Any]], T], fetch_next: Callable[[str], "Page[T]"]) -> None:
        self.body = body
        self.data: List[T] = [convert(item) if isinstance(item, dict) else item for item in body.get("data") or []]
        self.has_more: bool = bool(body.get("has_more"))
        self.next_cursor: Optional[str] = body.get("next_cursor")
        self._fetch_next = fetch_next

    def has_next_page(self) -> bool:
        return self.has_more and isinstance(self.next_cursor, str) and self.next_cursor != ""

    def next_page(self) -> "Page[T]":
        if not self.has_next_page():
            raise AmpError("There is no next page (check has_next_page()).")
        return self._fetch_next(self.next_cursor)  # type: ignore[arg-type]

    def pages(self) -> Iterator["Page[T]"]:
        page: Optional[Page[T]] = self
        while page is not None:
            yield page
            page = page.next_page() if page.has_next_page() else None

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return "Page(len=%d, has_more=%r, next_cursor=%r)" % (len(self.data), self.has_more, self.next_cursor)
