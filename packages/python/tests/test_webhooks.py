"""verify_webhook against fixed vectors, and against vectors the TypeScript SDK signed
(AMP_WEBHOOK_VECTORS, a JSON list the vitest file passes) when given."""
import base64
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from amp_client import WebhookVerificationError, sign_webhook, verify_webhook, webhook_signing_key  # noqa: E402

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef01234567").decode()
BODY = b'{"id":"evt_1","event":"execution.completed","timestamp":"2026-11-22T15:30:39.059Z","data":{"slug":"a"}}'


def headers(ts, signature, msg_id="evt_1"):
    return {"Webhook-Id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": signature}


class VerifyTest(unittest.TestCase):
    def test_valid_tampered_expired_future_missing(self):
        now = int(time.time())
        sig = sign_webhook(SECRET, "evt_1", now, BODY)
        envelope = verify_webhook(BODY, headers(now, sig), SECRET)
        self.assertEqual((envelope.id, envelope.event, envelope.data), ("evt_1", "execution.completed", {"slug": "a"}))
        for tampered in (BODY + b" ", BODY.replace(b'"a"', b'"b"')):
            with self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(tampered, headers(now, sig), SECRET)
            self.assertEqual(caught.exception.reason, "invalid_signature")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(BODY, headers(now, sig, msg_id="evt_2"), SECRET)
        self.assertEqual(caught.exception.reason, "invalid_signature")
        old = now - 301
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(BODY, headers(old, sign_webhook(SECRET, "evt_1", old, BODY)), SECRET)
        self.assertEqual(caught.exception.reason, "timestamp_too_old")
        self.assertEqual(verify_webhook(BODY, headers(old, sign_webhook(SECRET, "evt_1", old, BODY)), SECRET, tolerance=600).id, "evt_1")
        future = now + 301
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(BODY, headers(future, sign_webhook(SECRET, "evt_1", future, BODY)), SECRET)
        self.assertEqual(caught.exception.reason, "timestamp_too_new")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(BODY, {"webhook-id": "evt_1", "webhook-timestamp": str(now)}, SECRET)
        self.assertEqual(caught.exception.reason, "missing_headers")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(BODY, headers("12abc", sig), SECRET)
        self.assertEqual(caught.exception.reason, "invalid_timestamp")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(BODY, headers(now, sig), "whsec_" + base64.b64encode(b"another-secret-of-24-byt").decode())

    def test_several_signatures_any_one_verifies(self):
        now = int(time.time())
        old_secret = "whsec_" + base64.b64encode(b"the-rotated-out-secret!!").decode()
        both = "%s %s" % (sign_webhook(SECRET, "evt_1", now, BODY), sign_webhook(old_secret, "evt_1", now, BODY))
        self.assertEqual(verify_webhook(BODY, headers(now, both), SECRET).id, "evt_1")
        self.assertEqual(verify_webhook(BODY, headers(now, both), old_secret).id, "evt_1")
        junk = "v2,abc v1,not-base64!! " + sign_webhook(SECRET, "evt_1", now, BODY)
        self.assertEqual(verify_webhook(BODY, headers(now, junk), SECRET).id, "evt_1")
        # A header given as a list (several header lines) is joined like the TypeScript SDK does.
        listed = {"webhook-id": "evt_1", "webhook-timestamp": str(now), "webhook-signature": both.split(" ")}
        self.assertEqual(verify_webhook(BODY, listed, SECRET).id, "evt_1")

    def test_signing_keys(self):
        self.assertEqual(webhook_signing_key(SECRET), b"0123456789abcdef01234567")
        self.assertEqual(webhook_signing_key("plain secret"), b"plain secret")
        url_safe = "whsec_" + base64.urlsafe_b64encode(b"\xfb\xff\xfe-key-bytes").decode().rstrip("=")
        self.assertEqual(webhook_signing_key(url_safe), b"\xfb\xff\xfe-key-bytes")
        self.assertEqual(webhook_signing_key("whsec_"), b"whsec_")
        # A raw secret signs with its UTF-8 bytes.
        now = int(time.time())
        self.assertEqual(verify_webhook(BODY, headers(now, sign_webhook("raw-secret", "evt_1", now, BODY)), "raw-secret").id, "evt_1")

    @unittest.skipUnless(os.environ.get("AMP_WEBHOOK_VECTORS"), "AMP_WEBHOOK_VECTORS not set (the vitest file sets it)")
    def test_vectors_signed_by_the_typescript_sdk(self):
        vectors = json.loads(os.environ["AMP_WEBHOOK_VECTORS"])
        self.assertGreater(len(vectors), 0)
        for v in vectors:
            body = v["body"].encode("utf-8")
            hdrs = {"webhook-id": v["id"], "webhook-timestamp": str(v["timestamp"]), "webhook-signature": v["signature"]}
            self.assertEqual(sign_webhook(v["secret"], v["id"], v["timestamp"], body), v["signature"].split(" ")[0], v["secret"])
            self.assertEqual(verify_webhook(body, hdrs, v["secret"], now=v["timestamp"]).id, json.loads(v["body"])["id"])
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(body + b"x", hdrs, v["secret"], now=v["timestamp"])


if __name__ == "__main__":
    unittest.main()
