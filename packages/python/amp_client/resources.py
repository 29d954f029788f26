"""The API's resources, after the TypeScript SDK's (the README lists the methods; ``amp.request``
reaches any other operation). Every method takes keyword options ``idempotency_key``,
``max_retries``, ``timeout`` and ``headers`` (``**options``)."""
from __future__ import annotations

import http.client as http_client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterator, List, Optional, TypeVar

from ._http import SDK_VERSION, HttpClient
from .errors import ConnectionError, api_error_for
from .models import (
    ApiKey,
    ApiKeyWithSecret,
    AuditLogEntry,
    Execution,
    ExecutionResult,
    Invoice,
    Member,
    MemoryEntry,
    Module,
    Page,
    Webhook,
    WebhookEnvelope,
    Workflow,
    WorkflowRun,
)

T = TypeVar("T")
Json = Dict[str, Any]


def _enc(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


def _clean(**query: Any) -> Json:
    return {k: v for k, v in query.items() if v is not None}


class _Resource:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def _get(self, path: str, query: Optional[Json] = None, **options: Any) -> Any:
        return self._http.request("GET", path, query=query, **options)

    def _post(self, path: str, body: Any = None, **options: Any) -> Any:
        return self._http.request("POST", path, body=body, **options)

    def _put(self, path: str, body: Any = None, **options: Any) -> Any:
        return self._http.request("PUT", path, body=body, **options)

    def _patch(self, path: str, body: Any = None, **options: Any) -> Any:
        return self._http.request("PATCH", path, body=body, **options)

    def _delete(self, path: str, **options: Any) -> Any:
        return self._http.request("DELETE", path, **options)

    def _list(
        self,
        path: str,
        query: Json,
        convert: Callable[[Json], T],
        options: Json,
        cursor_param: str = "cursor",
    ) -> Page[T]:
        def load(q: Json) -> Page[T]:
            body = self._get(path, q, **options)
            return Page(body, convert, lambda cursor: load({**q, cursor_param: cursor}))

        return load(dict(query))


class Modules(_Resource):
    """The catalog, installs and execution."""

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Module]:
        """A page of modules (``installed`` for the tenant's installs); iterate it to walk every page."""
        options = _pop_options(query)
        return self._list("/api/v1/modules", _clean(limit=limit, cursor=cursor, **query), Module.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Module]:
        """Every module, page after page."""
        return iter(self.list(**query))

    def get(self, name: str, **options: Any) -> Module:
        return Module.from_dict(self._get("/api/v1/modules/%s" % _enc(name), **options))

    def search(self, q: str, **query: Any) -> Json:
        """Full-text search of the catalog: ``{data: [{module, action, title, score, ...}], ...}``."""
        options = _pop_options(query)
        return self._get("/api/v1/catalog/search", _clean(q=q, **query), **options)

    def execute(self, name: str, action: str, input: Optional[Json] = None, **options: Any) -> ExecutionResult:
        """Runs an action (the module installs itself on first use). Retried with one Idempotency-Key, so it runs once."""
        body: Json = {"action": action}
        if input is not None:
            body["input"] = input
        for extra in ("version", "timeout_ms", "agent_id"):
            if extra in options:
                body[extra] = options.pop(extra)
        return ExecutionResult.from_dict(self._post("/api/v1/modules/%s/execute" % _enc(name), body, **options))

    def install(self, name: str, **options: Any) -> Json:
        return self._post("/api/v1/modules/%s/install" % _enc(name), **options)

    def uninstall(self, name: str, **options: Any) -> Json:
        return self._delete("/api/v1/modules/%s/install" % _enc(name), **options)

    def publish(self, definition: Json, **options: Any) -> Json:
        """Publishes a tenant module (``POST /api/v1/modules``)."""
        return self._post("/api/v1/modules", definition, **options)

    def update(self, name: str, definition: Json, **options: Any) -> Json:
        """Publishes a new version of a tenant module."""
        return self._put("/api/v1/modules/%s" % _enc(name), definition, **options)


class Executions(_Resource):
    """The tenant's execution records."""

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Execution]:
        """Filters: ``status``, ``module``, ``since``, ``until`` and the others of ``GET /api/v1/executions``."""
        options = _pop_options(query)
        return self._list("/api/v1/executions", _clean(limit=limit, cursor=cursor, **query), Execution.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Execution]:
        return iter(self.list(**query))

    def get(self, execution_id: str, **options: Any) -> Execution:
        return Execution.from_dict(self._get("/api/v1/executions/%s" % _enc(execution_id), **options))


class Keys(_Resource):
    """API keys (creating one needs Pro or above; the answer holds the secret once)."""

    def create(self, name: str, scopes: Optional[List[str]] = None, **options: Any) -> ApiKeyWithSecret:
        body: Json = {"name": name}
        if scopes is not None:
            body["scopes"] = scopes
        if "policy" in options:
            body["policy"] = options.pop("policy")
        return ApiKeyWithSecret.from_dict(self._post("/api/v1/keys", body, **options))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[ApiKey]:
        options = _pop_options(query)
        return self._list("/api/v1/keys", _clean(limit=limit, cursor=cursor, **query), ApiKey.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[ApiKey]:
        return iter(self.list(**query))

    def get(self, key_id: str, **options: Any) -> ApiKey:
        return ApiKey.from_dict(self._get("/api/v1/keys/%s" % _enc(key_id), **options))

    def revoke(self, key_id: str, **options: Any) -> Json:
        return self._delete("/api/v1/keys/%s" % _enc(key_id), **options)

    def rotate(self, key_id: str, grace_seconds: Optional[int] = None, **options: Any) -> ApiKeyWithSecret:
        """A new secret; the old one keeps working for ``grace_seconds``."""
        body = _clean(grace_seconds=grace_seconds)
        return ApiKeyWithSecret.from_dict(self._post("/api/v1/keys/%s/rotate" % _enc(key_id), body, **options))

    def set_policy(self, key_id: str, policy: Json, **options: Any) -> ApiKey:
        return ApiKey.from_dict(self._put("/api/v1/keys/%s/policy" % _enc(key_id), policy, **options))

    def usage(self, key_id: str, **query: Any) -> Json:
        """The key's executions and refusals, and its caps (``since``, ``until``)."""
        options = _pop_options(query)
        return self._get("/api/v1/keys/%s/usage" % _enc(key_id), _clean(**query), **options)


class Webhooks(_Resource):
    """Webhook subscriptions and their deliveries."""

    def create(
        self,
        url: Optional[str] = None,
        events: Optional[List[str]] = None,
        *,
        kind: Optional[str] = None,
        secret: Optional[str] = None,
        **fields: Any,
    ) -> Webhook:
        options = _pop_options(fields)
        body = _clean(url=url, events=events, kind=kind, secret=secret, **fields)
        return Webhook.from_dict(self._post("/api/v1/webhooks", body, **options))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Webhook]:
        options = _pop_options(query)
        return self._list("/api/v1/webhooks", _clean(limit=limit, cursor=cursor, **query), Webhook.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Webhook]:
        return iter(self.list(**query))

    def get(self, id: str, **options: Any) -> Webhook:
        """The subscription with its latest deliveries (``webhook["deliveries"]``)."""
        return Webhook.from_dict(self._get("/api/v1/webhooks/%s" % _enc(id), **options))

    def update(self, id: str, **fields: Any) -> Webhook:
        """Changes the given fields (``url``, ``events``, ``filter``, ``headers``, ...)."""
        options = _pop_options(fields)
        return Webhook.from_dict(self._put("/api/v1/webhooks/%s" % _enc(id), fields, **options))

    def delete(self, id: str, **options: Any) -> Json:
        return self._delete("/api/v1/webhooks/%s" % _enc(id), **options)

    def test(self, id: str, event: Optional[str] = None, **options: Any) -> Json:
        """Sends one signed test attempt now and answers how the receiver replied."""
        return self._post("/api/v1/webhooks/%s/test" % _enc(id), _clean(event=event), **options)

    def messages(self, id: str, *, after: Optional[str] = None, limit: Optional[int] = None, **options: Any) -> Page[WebhookEnvelope]:
        """A page of a poll subscription's messages; iterating it reads on."""
        return self._list(
            "/api/v1/webhooks/%s/messages" % _enc(id),
            _clean(after=after, limit=limit),
            WebhookEnvelope.from_dict,
            options,
            cursor_param="after",
        )

    def messages_all(self, id: str, **query: Any) -> Iterator[WebhookEnvelope]:
        return iter(self.messages(id, **query))

    def rotate_secret(self, id: str, **fields: Any) -> Webhook:
        """A new secret (``secret``, ``overlap_seconds`` among ``fields``); the old one signs too during the overlap."""
        options = _pop_options(fields)
        return Webhook.from_dict(self._post("/api/v1/webhooks/%s/rotate-secret" % _enc(id), fields, **options))

    def deliveries(self, id: str, **options: Any) -> List[Json]:
        """The latest 100 deliveries of a push subscription (newest first, each with its attempts)."""
        return list(self._get("/api/v1/webhooks/%s" % _enc(id), **options).get("deliveries") or [])

    def delivery(self, id: str, delivery_id: str, **options: Any) -> Json:
        """One delivery with its attempts and the ``payload`` it sends."""
        return self._get("/api/v1/webhooks/%s/deliveries/%s" % (_enc(id), _enc(delivery_id)), **options)

    def resend(self, id: str, delivery_id: str, **options: Any) -> Json:
        return self._post("/api/v1/webhooks/%s/deliveries/%s/resend" % (_enc(id), _enc(delivery_id)), **options)

    def enable(self, id: str, **options: Any) -> Webhook:
        return Webhook.from_dict(self._post("/api/v1/webhooks/%s/enable" % _enc(id), **options))

    def replay(self, id: str, since: str, until: Optional[str] = None, **options: Any) -> Json:
        """Sends every event of the window ``[since, until)`` again (at most 7 days back)."""
        return self._post("/api/v1/webhooks/%s/replay" % _enc(id), _clean(since=since, until=until), **options)

    def recover(self, id: str, since: str, until: Optional[str] = None, **options: Any) -> Json:
        """Sends again the window's events the receiver did not get: failed, cancelled or never made (disabled)."""
        return self._post("/api/v1/webhooks/%s/recover" % _enc(id), _clean(since=since, until=until), **options)

    def stats(self, id: str, **query: Any) -> Json:
        options = _pop_options(query)
        return self._get("/api/v1/webhooks/%s/stats" % _enc(id), _clean(**query), **options)

    def event_types(self, **options: Any) -> Json:
        return self._get("/api/v1/webhooks/event-types", **options)

    def health(self, **options: Any) -> Json:
        return self._get("/api/v1/webhooks/health", **options)


class Memory(_Resource):
    """Agent memory: key-value entries per agent id."""

    def set(self, agent_id: str, key: str, value: Any, **fields: Any) -> MemoryEntry:
        """Creates or replaces an entry (``ttl_seconds``, ``tags`` among ``fields``)."""
        options = _pop_options(fields)
        body = {"agent_id": agent_id, "key": key, "value": value, **fields}
        return MemoryEntry.from_dict(self._post("/api/v1/memory", body, **options))

    def get(self, agent_id: str, key: str, **options: Any) -> MemoryEntry:
        return MemoryEntry.from_dict(self._get("/api/v1/memory/%s/%s" % (_enc(agent_id), _enc(key)), **options))

    def delete(self, agent_id: str, key: str, **options: Any) -> Json:
        return self._delete("/api/v1/memory/%s/%s" % (_enc(agent_id), _enc(key)), **options)

    def list(self, agent_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[MemoryEntry]:
        options = _pop_options(query)
        return self._list(
            "/api/v1/memory", _clean(agent_id=agent_id, limit=limit, cursor=cursor, **query), MemoryEntry.from_dict, options
        )

    def list_all(self, agent_id: str, **query: Any) -> Iterator[MemoryEntry]:
        return iter(self.list(agent_id, **query))

    def agents(self, **query: Any) -> Json:
        """The agent ids that have entries."""
        options = _pop_options(query)
        return self._get("/api/v1/memory/agents", _clean(**query), **options)


class Workflows(_Resource):
    """Workflows (sequences of module actions) and their runs."""

    def create(self, name: str, steps: List[Json], **fields: Any) -> Workflow:
        options = _pop_options(fields)
        return Workflow.from_dict(self._post("/api/v1/workflows", {"name": name, "steps": steps, **fields}, **options))

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Workflow]:
        options = _pop_options(query)
        return self._list("/api/v1/workflows", _clean(limit=limit, cursor=cursor, **query), Workflow.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Workflow]:
        return iter(self.list(**query))

    def get(self, id: str, **options: Any) -> Workflow:
        return Workflow.from_dict(self._get("/api/v1/workflows/%s" % _enc(id), **options))

    def update(self, id: str, name: str, steps: List[Json], **fields: Any) -> Workflow:
        """Replaces the definition (a new version): ``name``, ``steps`` and the optional fields."""
        options = _pop_options(fields)
        return Workflow.from_dict(self._put("/api/v1/workflows/%s" % _enc(id), {"name": name, "steps": steps, **fields}, **options))

    def delete(self, id: str, **options: Any) -> Json:
        return self._delete("/api/v1/workflows/%s" % _enc(id), **options)

    def run(self, id: str, input: Optional[Json] = None, **options: Any) -> WorkflowRun:
        """Starts a run (202); poll it with ``get_run``."""
        return WorkflowRun.from_dict(self._post("/api/v1/workflows/%s/runs" % _enc(id), _clean(input=input), **options))

    def runs(self, id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[WorkflowRun]:
        options = _pop_options(query)
        return self._list(
            "/api/v1/workflows/%s/runs" % _enc(id), _clean(limit=limit, cursor=cursor, **query), WorkflowRun.from_dict, options
        )

    def runs_all(self, id: str, **query: Any) -> Iterator[WorkflowRun]:
        return iter(self.runs(id, **query))

    def get_run(self, id: str, run_id: str, **options: Any) -> WorkflowRun:
        return WorkflowRun.from_dict(self._get("/api/v1/workflows/%s/runs/%s" % (_enc(id), _enc(run_id)), **options))

    def cancel_run(self, id: str, run_id: str, **options: Any) -> WorkflowRun:
        return WorkflowRun.from_dict(self._post("/api/v1/workflows/%s/runs/%s/cancel" % (_enc(id), _enc(run_id)), **options))

    def approve_step(self, id: str, run_id: str, step: str, comment: Optional[str] = None, **options: Any) -> WorkflowRun:
        """Approves a waiting approval step: it succeeds with ``{approved, comment, by, decided_at}`` and the run goes on."""
        path = "/api/v1/workflows/%s/runs/%s/steps/%s/approve" % (_enc(id), _enc(run_id), _enc(step))
        return WorkflowRun.from_dict(self._post(path, _clean(comment=comment), **options))

    def reject_step(self, id: str, run_id: str, step: str, comment: Optional[str] = None, **options: Any) -> WorkflowRun:
        """Rejects a waiting approval step: the step fails with ``rejected`` and the run fails with it."""
        path = "/api/v1/workflows/%s/runs/%s/steps/%s/reject" % (_enc(id), _enc(run_id), _enc(step))
        return WorkflowRun.from_dict(self._post(path, _clean(comment=comment), **options))

    def replay_run(self, id: str, run_id: str, **options: Any) -> WorkflowRun:
        """Replays a failed or cancelled run from where it stopped: a new run (``run["replay_of"]``); asking again answers the same one."""
        return WorkflowRun.from_dict(self._post("/api/v1/workflows/%s/runs/%s/replay" % (_enc(id), _enc(run_id)), **options))

    def cancel_runs(
        self, id: str, *, status: Optional[str] = None, since: Optional[str] = None, until: Optional[str] = None, **options: Any
    ) -> Json:
        """Cancels the queued and running runs matching the filter: ``{cancelled, run_ids, has_more}`` (at most 500 per call)."""
        body = _clean(status=status, since=since, until=until)
        return self._post("/api/v1/workflows/%s/runs/cancel" % _enc(id), body, **options)

    def replay_runs(
        self, id: str, *, status: Optional[str] = None, since: Optional[str] = None, until: Optional[str] = None, **options: Any
    ) -> Json:
        """Replays the failed runs (or ``status="cancelled"``) matching the filter, each once: ``{replayed, runs, has_more}``."""
        body = _clean(status=status, since=since, until=until)
        return self._post("/api/v1/workflows/%s/runs/replay" % _enc(id), body, **options)


class Usage(_Resource):
    """The tenant's metered usage in a billing cycle."""

    def get(self, cycle: Optional[str] = None, **options: Any) -> Json:
        return self._get("/api/v1/billing/usage", _clean(cycle=cycle), **options)

    __call__ = get


class Invoices(_Resource):
    """Invoices, one per closed billing cycle."""

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Invoice]:
        options = _pop_options(query)
        return self._list("/api/v1/billing/invoices", _clean(limit=limit, cursor=cursor, **query), Invoice.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Invoice]:
        return iter(self.list(**query))

    def get(self, id: str, **options: Any) -> Invoice:
        return Invoice.from_dict(self._get("/api/v1/billing/invoices/%s" % _enc(id), **options))

    def pdf(self, id: str, **options: Any) -> bytes:
        return self._http.request("GET", "/api/v1/billing/invoices/%s.pdf" % _enc(id), raw=True, **options)


class Members(_Resource):
    """The people of the tenant."""

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[Member]:
        options = _pop_options(query)
        return self._list("/api/v1/members", _clean(limit=limit, cursor=cursor, **query), Member.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[Member]:
        return iter(self.list(**query))

    def me(self, **options: Any) -> Json:
        """Who is calling: its role, scopes and every tenant it belongs to."""
        return self._get("/api/v1/members/me", **options)

    def roles(self, **options: Any) -> Json:
        return self._get("/api/v1/members/roles", **options)

    def invite(self, email: str, role: str, **options: Any) -> Json:
        return self._post("/api/v1/members/invitations", {"email": email, "role": role}, **options)

    def invitations(self, **options: Any) -> Json:
        return self._get("/api/v1/members/invitations", **options)

    def revoke_invitation(self, id: str, **options: Any) -> Json:
        return self._delete("/api/v1/members/invitations/%s" % _enc(id), **options)

    def change_role(self, user_id: str, role: str, **options: Any) -> Json:
        return self._patch("/api/v1/members/%s" % _enc(user_id), {"role": role}, **options)

    def remove(self, user_id: str, **options: Any) -> Json:
        return self._delete("/api/v1/members/%s" % _enc(user_id), **options)

    def resend_invitation(self, id: str, **options: Any) -> Json:
        return self._post("/api/v1/members/invitations/%s/resend" % _enc(id), **options)

    def accept_invitation(self, token: str, **options: Any) -> Json:
        """With the invited user's bearer token: joins with the invitation's role."""
        return self._post("/api/v1/members/invitations/%s/accept" % _enc(token), **options)

    def leave(self, **options: Any) -> Json:
        return self._post("/api/v1/members/leave", **options)

    def transfer_ownership(self, user_id: str, **options: Any) -> Json:
        return self._post("/api/v1/members/transfer-ownership", {"user_id": user_id}, **options)

    def accept_ownership(self, token: str, **options: Any) -> Json:
        return self._post("/api/v1/members/transfer-ownership/accept", {"token": token}, **options)


class AuditLog(_Resource):
    """The audit log: who changed what (filters ``actor``, ``action``, ``target_type``, ``since``, ...)."""

    def list(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, **query: Any) -> Page[AuditLogEntry]:
        options = _pop_options(query)
        return self._list("/api/v1/audit-log", _clean(limit=limit, cursor=cursor, **query), AuditLogEntry.from_dict, options)

    def list_all(self, **query: Any) -> Iterator[AuditLogEntry]:
        return iter(self.list(**query))

    def csv(self, **query: Any) -> str:
        """The entries matching the same filters as one CSV document (``GET /api/v1/audit-log.csv``)."""
        options = _pop_options(query)
        return self._get("/api/v1/audit-log.csv", _clean(**query), **options)


class Events(_Resource):
    """The tenant's event stream (``GET /api/v1/events/stream``, Server-Sent Events)."""

    def stream(
        self,
        events: Optional[List[str]] = None,
        *,
        after: Optional[str] = None,
        last_event_id: Optional[str] = None,
        reconnect: bool = True,
        idle_timeout: float = 45.0,
        max_reconnect_delay: float = 30.0,
    ) -> Iterator[WebhookEnvelope]:
        """Yields each event's envelope (``{id, event, timestamp, data}``) as it is recorded.

        ``events`` narrows the kinds; ``after`` starts after an event id or a poll cursor (default:
        now); ``last_event_id`` resumes after an event received earlier. After a drop (the
        connection closes, nothing for ``idle_timeout`` seconds although the service writes a
        heartbeat every 15, a 429 or a 5xx) it reconnects with ``Last-Event-ID``, so nothing is
        lost or repeated; ``reconnect=False`` ends the iteration instead. A refusal (401, 403,
        400) raises its ApiError. Stop with ``break`` (or the generator's ``close()``).
        """
        http = self._http
        url = http.url("/api/v1/events/stream", _clean(events=",".join(events) if events else None, after=after))
        last_id = last_event_id
        retry = 2.0
        failures = 0
        while True:
            headers = {"accept": "text/event-stream", "user-agent": "amp-client-python/%s" % SDK_VERSION}
            headers.update(http.default_headers)
            headers.update(http.auth_headers())
            if last_id:
                headers["last-event-id"] = last_id
            wait: Optional[float] = None
            try:
                with http._opener.open(urllib.request.Request(url, headers=headers), timeout=idle_timeout) as res:
                    failures = 0
                    event_id, data = "", []  # type: str, List[str]
                    while True:
                        raw_line = res.readline()
                        if not raw_line:
                            break
                        line = raw_line.decode("utf-8").rstrip("\r\n")
                        if line == "":
                            if data:
                                envelope = WebhookEnvelope.from_dict(json.loads("\n".join(data)))
                                last_id = event_id or envelope.id or last_id
                                yield envelope
                            data = []
                            continue
                        if line.startswith(":"):
                            continue
                        name, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if name == "data":
                            data.append(value)
                        elif name == "id":
                            event_id = value
                        elif name == "retry" and value.isdigit():
                            retry = int(value) / 1000
            except urllib.error.HTTPError as err:
                body: Optional[Json] = None
                try:
                    candidate = json.loads(err.read().decode("utf-8") or "null")
                    body = candidate if isinstance(candidate, dict) else None
                except (ValueError, OSError):
                    pass
                error = api_error_for(err.code, body, {k.lower(): v for k, v in (err.headers or {}).items()})
                if not (reconnect and (err.code == 429 or err.code >= 500)):
                    raise error from None
                wait = error.retry_after
            except (urllib.error.URLError, OSError, http_client.HTTPException) as err:
                if not reconnect:
                    raise ConnectionError("The event stream failed: %s" % getattr(err, "reason", err)) from err
            if not reconnect:
                return
            failures += 1
            time.sleep(wait if wait is not None else min(max_reconnect_delay, retry * 2 ** max(0, failures - 1)))


class Plans(_Resource):
    """Plans: the catalog and the tenant's plan change."""

    def list(self, **options: Any) -> Json:
        return self._get("/api/v1/billing/plans", **options)

    def change(self, plan: str, **options: Any) -> Json:
        return self._put("/api/v1/billing/plan", {"plan": plan}, **options)


_OPTION_NAMES = ("idempotency_key", "max_retries", "timeout", "headers")


def _pop_options(kwargs: Json) -> Json:
    """Takes the per-call options out of keyword arguments that are otherwise query or body fields."""
    return {name: kwargs.pop(name) for name in _OPTION_NAMES if name in kwargs}
