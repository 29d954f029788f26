"""Verifying a delivery's Standard Webhooks signature, as the service signs it.

``webhook-signature`` is ``v1,`` + base64 HMAC-SHA256 of ``{webhook-id}.{webhook-timestamp}.{raw body}``,
space-separated when a rotated-out secret still signs (``v1,<new> v1,<old>``). The key: for a
``whsec_`` secret the bytes its base64 (or base64url) part decodes to, for any other secret its
UTF-8 bytes.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Union

from .errors import AmpError
from .models import WebhookEnvelope

__all__ = ["WebhookVerificationError", "verify_webhook", "sign_webhook", "webhook_signing_key"]

_PREFIX = "whsec_"
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$")


class WebhookVerificationError(AmpError):
    """A delivery that did not verify; ``reason`` says why: ``missing_headers``,
    ``invalid_timestamp``, ``timestamp_too_old``, ``timestamp_too_new``, ``invalid_signature``
    or ``invalid_payload``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def webhook_signing_key(secret: str) -> bytes:
    """The HMAC key of ``webhook-signature`` for a webhook's secret (as the service derives it)."""
    if secret.startswith(_PREFIX):
        encoded = secret[len(_PREFIX) :]
        if _BASE64.match(encoded) and len(encoded.rstrip("=")) % 4 != 1:
            url_safe = "-" in encoded or "_" in encoded
            padded = encoded.rstrip("=") + "=" * (-len(encoded.rstrip("=")) % 4)
            try:
                key = base64.urlsafe_b64decode(padded) if url_safe else base64.b64decode(padded)
            except (binascii.Error, ValueError):
                key = b""
            if key:
                return key
    return secret.encode("utf-8")


def sign_webhook(secret: str, msg_id: str, timestamp: int, raw_body: Union[bytes, str]) -> str:
    """The ``webhook-signature`` value for a delivery (what the service sends): for tests and tools."""
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    mac = hmac.new(webhook_signing_key(secret), ("%s.%d." % (msg_id, timestamp)).encode("utf-8") + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode("ascii")


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    getter = getattr(headers, "get_all", None)  # email.message.Message / http.client.HTTPMessage
    if callable(getter):
        values = getter(name)
        return " ".join(values) if values else None
    for key in headers.keys():
        if key.lower() == name:
            value = headers[key]
            if isinstance(value, (list, tuple)):
                return " ".join(str(v) for v in value)
            return None if value is None else str(value)
    return None


def verify_webhook(
    raw_body: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: str,
    tolerance: int = 300,
    *,
    now: Optional[float] = None,
) -> WebhookEnvelope:
    """Verifies a delivery against ``secret`` and returns its parsed body.

    ``raw_body`` must be the bytes received (never re-serialized JSON); ``headers`` any mapping
    (a dict, ``http.server``'s ``self.headers``, ...), names compared case-insensitively.
    ``tolerance`` is how far ``webhook-timestamp`` may be from now, in seconds, either way.
    Raises :class:`WebhookVerificationError` when a header is missing, the timestamp is outside
    the tolerance or no ``v1`` signature matches.
    """
    msg_id = _header(headers, "webhook-id")
    timestamp_header = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp_header or not signatures:
        raise WebhookVerificationError(
            "missing_headers", "The webhook-id, webhook-timestamp and webhook-signature headers are required."
        )
    if not re.match(r"^\d+$", timestamp_header.strip()):
        raise WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not a Unix time.")
    timestamp = int(timestamp_header.strip())
    current = int(time.time() if now is None else now)
    if timestamp < current - tolerance:
        raise WebhookVerificationError("timestamp_too_old", "The delivery is older than the tolerance.")
    if timestamp > current + tolerance:
        raise WebhookVerificationError("timestamp_too_new", "The delivery is dated in the future.")

    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = base64.b64decode(sign_webhook(secret, msg_id, timestamp, body)[3:])
    matched = False
    for part in signatures.split(" "):
        version, sep, value = part.partition(",")
        if not sep or version != "v1":
            continue
        try:
            given = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            continue
        # Every candidate is compared (no early exit); compare_digest is constant-time.
        if hmac.compare_digest(given, expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("invalid_signature", "No webhook-signature matches the secret.")
    try:
        parsed = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("invalid_payload", "The signed body is not JSON.") from None
    if not isinstance(parsed, dict):
        raise WebhookVerificationError("invalid_payload", "The signed body is not a JSON object.")
    return WebhookEnvelope.from_dict(parsed)
