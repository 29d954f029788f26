"""The exceptions the client raises: one class per kind of API answer, as the TypeScript SDK."""
from __future__ import annotations

import email.utils
import time
from typing import Any, Dict, List, Mapping, Optional

__all__ = [
    "AmpError",
    "ApiError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "UnprocessableEntityError",
    "RateLimitError",
    "ServerError",
    "ConnectionError",
    "TimeoutError",
    "api_error_for",
    "parse_retry_after",
]

_CODE_FOR_STATUS = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "invalid_input",
    429: "rate_limit_exceeded",
    # Without the API's error body, a 502 or 504 came from something in front of the API (a
    # proxy), not from a module.
    502: "unavailable",
    503: "unavailable",
    504: "unavailable",
}


class AmpError(Exception):
    """The base class of every error the client raises."""


class ApiError(AmpError):
    """A non-2xx answer: its body is ``{error, message, request_id, doc_url, ...fields}``.

    ``code`` is the body's ``error``; ``body`` the whole parsed body (the code's own fields,
    e.g. ``required_scope``, ``retry_after``); ``issues`` a list of ``{path, message}`` for a 400.
    """

    def __init__(
        self,
        status: int,
        body: Optional[Dict[str, Any]],
        headers: Mapping[str, str],
        fallback_message: Optional[str] = None,
    ) -> None:
        body = body if isinstance(body, dict) else None
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in dict(headers).items()}
        self.code: str = (body or {}).get("error") or _CODE_FOR_STATUS.get(status, "internal_error")
        self.message: str = (body or {}).get("message") or fallback_message or "HTTP %d" % status
        self.request_id: Optional[str] = (body or {}).get("request_id") or self.headers.get("x-request-id")
        self.doc_url: Optional[str] = (body or {}).get("doc_url")
        issues = (body or {}).get("issues")
        self.issues: List[Dict[str, Any]] = list(issues) if isinstance(issues, list) else []
        super().__init__(self.message)

    @property
    def retry_after(self) -> Optional[float]:
        """Seconds the API asked to wait (``Retry-After``), when it did."""
        return parse_retry_after(self.headers.get("retry-after"))

    def __str__(self) -> str:
        rid = " (request %s)" % self.request_id if self.request_id else ""
        return "%d %s: %s%s" % (self.status, self.code, self.message, rid)

    def __repr__(self) -> str:
        return "%s(status=%d, code=%r, message=%r, request_id=%r)" % (
            type(self).__name__,
            self.status,
            self.code,
            self.message,
            self.request_id,
        )


class BadRequestError(ApiError):
    """400 ``invalid_request`` (``issues`` says which fields)."""


class AuthenticationError(ApiError):
    """401 ``unauthorized``."""


class PermissionDeniedError(ApiError):
    """403: ``insufficient_scope``, ``plan_required``, ``policy_denied``, ``forbidden``."""


class NotFoundError(ApiError):
    """404 ``not_found`` (also for another tenant's resource)."""


class ConflictError(ApiError):
    """409 ``conflict``."""


class UnprocessableEntityError(ApiError):
    """422 ``invalid_input`` (``body['execution']`` is the failed record)."""


class RateLimitError(ApiError):
    """429: ``rate_limit_exceeded``, ``quota_exceeded``, ``concurrency_limit_exceeded``, ``key_limit_exceeded``."""


class ServerError(ApiError):
    """5xx: ``internal_error``, ``module_error`` (502), ``unavailable`` (503), ``timeout`` (504)."""


class ConnectionError(AmpError):  # noqa: A001 - the SDK's name, shadows the builtin inside this module only
    """The request got no answer (connection refused or reset, DNS, timeout)."""


class TimeoutError(ConnectionError):  # noqa: A001
    """The request took longer than the client's ``timeout``."""


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def api_error_for(
    status: int,
    body: Optional[Dict[str, Any]],
    headers: Mapping[str, str],
    fallback_message: Optional[str] = None,
) -> ApiError:
    """The typed error for an answer's status."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    return cls(status, body, headers, fallback_message)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    try:
        seconds = float(v)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None:
        return None
    return max(0.0, at.timestamp() - time.time())
