"""The HTTP layer: urllib with credentials, JSON, retries honouring Retry-After and one
Idempotency-Key per call (reused by that call's retries)."""
from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional

from .errors import AmpError, ConnectionError, TimeoutError, api_error_for, parse_retry_after

SDK_VERSION = "0.1.0"
RETRY_STATUSES = frozenset({429, 503})


def new_idempotency_key() -> str:
    """A random ``Idempotency-Key`` (visible ASCII, well under the 255-character limit)."""
    return "amp-py-%s" % uuid.uuid4()


@dataclass
class RetryInfo:
    """What the client tells ``on_retry`` before it waits and sends the request again."""

    method: str
    path: str
    attempt: int
    delay: float
    status: Optional[int]
    retry_after: Optional[float]
    idempotency_key: Optional[str]
    error: Exception


class HttpClient:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: Optional[str] = None,
        bearer_token: Optional[str] = None,
        tenant_id: Optional[str] = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        initial_retry_delay: float = 0.5,
        max_retry_delay: float = 60.0,
        headers: Optional[Mapping[str, str]] = None,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
    ) -> None:
        if (api_key is None) == (bearer_token is None):
            raise AmpError("Pass api_key=... or bearer_token=... (one of them).")
        if tenant_id is not None and bearer_token is None:
            raise AmpError("tenant_id goes with bearer_token.")
        if not base_url:
            raise AmpError("Pass base_url, e.g. https://amp.example.com.")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.bearer_token = bearer_token
        self.tenant_id = tenant_id
        self.max_retries = max_retries
        self.timeout = timeout
        self.initial_retry_delay = initial_retry_delay
        self.max_retry_delay = max_retry_delay
        self.default_headers = dict(headers or {})
        self.on_retry = on_retry
        # No proxies from the environment for a loopback service; urllib's defaults otherwise.
        self._opener = urllib.request.build_opener()

    def auth_headers(self) -> Dict[str, str]:
        if self.api_key is not None:
            return {"x-api-key": self.api_key}
        headers = {"authorization": "Bearer %s" % self.bearer_token}
        if self.tenant_id:
            headers["x-tenant-id"] = self.tenant_id
        return headers

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        url = self.base_url + path
        pairs = []
        for k, v in (query or {}).items():
            if v is None:
                continue
            if isinstance(v, (list, tuple)):
                pairs.extend((k, _qs(item)) for item in v)
            else:
                pairs.append((k, _qs(v)))
        return url + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def retry_delay(self, attempt: int, retry_after: Optional[float]) -> float:
        """Seconds before retry ``attempt`` (1-based): Retry-After when given, else exponential with jitter."""
        if retry_after is not None:
            return retry_after + random.random() * 0.25
        ceiling = min(self.max_retry_delay, self.initial_retry_delay * 2 ** (attempt - 1))
        return ceiling / 2 + random.random() * ceiling / 2

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotent: bool = True,
        raw: bool = False,
        idempotency_key: Optional[str] = None,
        max_retries: Optional[int] = None,
        timeout: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        method = method.upper()
        is_write = method != "GET"
        key = (idempotency_key or new_idempotency_key()) if is_write and idempotent else None
        retries = self.max_retries if max_retries is None else max_retries
        # A write without an idempotency key is not retried after a network error: it may have run.
        retry_network = not is_write or key is not None
        url = self.url(path, query)
        all_headers: Dict[str, str] = {
            "accept": "*/*" if raw else "application/json",
            "user-agent": "amp-client-python/%s" % SDK_VERSION,
        }
        all_headers.update(self.default_headers)
        all_headers.update(self.auth_headers())
        all_headers.update(headers or {})
        if key:
            all_headers["idempotency-key"] = key
        data: Optional[bytes] = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            all_headers["content-type"] = "application/json"
        per_attempt = self.timeout if timeout is None else timeout

        attempt = 0
        while True:
            req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
            try:
                with self._opener.open(req, timeout=per_attempt) as res:
                    status = res.status
                    res_headers = {k.lower(): v for k, v in res.headers.items()}
                    payload = res.read()
                ok = True
            except urllib.error.HTTPError as err:
                status = err.code
                res_headers = {k.lower(): v for k, v in (err.headers or {}).items()}
                try:
                    payload = err.read()
                except (OSError, http.client.HTTPException):
                    payload = b""
                ok = False
            except (urllib.error.URLError, OSError, http.client.HTTPException) as cause:
                reason = getattr(cause, "reason", cause)
                if isinstance(reason, socket.timeout) or isinstance(cause, socket.timeout):
                    error: Exception = TimeoutError("%s %s timed out after %s s" % (method, path, per_attempt))
                else:
                    error = ConnectionError("%s %s failed: %s" % (method, path, reason))
                error.__cause__ = cause
                if not retry_network or attempt >= retries:
                    raise error from cause
                attempt += 1
                delay = self.retry_delay(attempt, None)
                self._notify(method, path, attempt, delay, None, None, key, error)
                time.sleep(delay)
                continue

            if ok:
                if raw:
                    return payload
                text = payload.decode("utf-8") if payload else ""
                if not text:
                    return None
                # An answer that is not JSON (a CSV export, llms.txt) comes back as text.
                if "json" not in res_headers.get("content-type", "application/json").lower():
                    return text
                return json.loads(text)

            text = payload.decode("utf-8", errors="replace") if payload else ""
            parsed: Optional[Dict[str, Any]] = None
            try:
                candidate = json.loads(text) if text else None
                if isinstance(candidate, dict) and isinstance(candidate.get("error"), str):
                    parsed = candidate
            except ValueError:
                pass
            api_error = api_error_for(status, parsed, res_headers, text[:200] if text and parsed is None else None)
            retry_after = parse_retry_after(res_headers.get("retry-after"))
            retryable = status in RETRY_STATUSES or (
                # An earlier attempt with the same Idempotency-Key is still running.
                status == 409
                and key is not None
                and retry_after is not None
            )
            if not retryable or attempt >= retries:
                raise api_error
            attempt += 1
            delay = self.retry_delay(attempt, retry_after)
            # A Retry-After beyond the cap (a monthly quota) is not waited for.
            if delay > self.max_retry_delay + 0.25:
                raise api_error
            self._notify(method, path, attempt, delay, status, retry_after, key, api_error)
            time.sleep(delay)

    def _notify(self, method, path, attempt, delay, status, retry_after, key, error) -> None:  # type: ignore[no-untyped-def]
        if self.on_retry is not None:
            self.on_retry(RetryInfo(method, path, attempt, delay, status, retry_after, key, error))


def _qs(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)
