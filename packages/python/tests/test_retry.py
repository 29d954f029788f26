"""Retries against a local http.server answering what each test needs (no service)."""
import json
import os
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from amp_client import Amp, ConnectionError, NotFoundError, RateLimitError, ServerError, TimeoutError  # noqa: E402

RATE_LIMITED = {
    "status": 429,
    "headers": {"retry-after": "1", "x-request-id": "req_limited"},
    "body": {
        "error": "rate_limit_exceeded",
        "message": "Too many requests.",
        "request_id": "req_limited",
        "doc_url": "http://x/docs/errors#rate_limit_exceeded",
    },
}
EXECUTED = {
    "status": 200,
    "body": {"execution_id": "exe_1", "module": "text", "action": "slugify", "status": "success", "output": {"slug": "a"}},
}


class Scripted:
    """A server answering ``answers`` in order (the last one again after that), recording each request."""

    def __init__(self, answers):
        self.answers = answers
        self.seen = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _answer(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.seen.append({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                answer = outer.answers[min(len(outer.seen) - 1, len(outer.answers) - 1)]
                if isinstance(answer, dict) and answer.get("delay"):
                    time.sleep(answer["delay"])
                if answer == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                payload = json.dumps(answer.get("body", {})).encode()
                self.send_response(answer["status"])
                self.send_header("content-type", "application/json")
                for k, v in answer.get("headers", {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except BrokenPipeError:  # the client gave up (a timeout test)
                    pass

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class RetryTest(unittest.TestCase):
    def scripted(self, answers):
        server = Scripted(answers)
        self.addCleanup(server.close)
        return server

    def test_429_then_200_honours_retry_after_with_one_idempotency_key(self):
        server = self.scripted([RATE_LIMITED, EXECUTED])
        retries = []
        amp = Amp(api_key="amp_test", base_url=server.url, on_retry=retries.append)
        result = amp.modules.execute("text", "slugify", {"text": "A"})
        self.assertEqual(result.output, {"slug": "a"})
        self.assertEqual(len(server.seen), 2)
        keys = [s["headers"].get("idempotency-key") for s in server.seen]
        self.assertRegex(keys[0], r"^amp-py-[0-9a-f-]{36}$")
        self.assertEqual(keys[1], keys[0])
        self.assertEqual(server.seen[1]["body"], server.seen[0]["body"])
        self.assertEqual(len(retries), 1)
        self.assertEqual((retries[0].attempt, retries[0].status, retries[0].retry_after), (1, 429, 1.0))
        self.assertEqual(retries[0].idempotency_key, keys[0])
        # Retry-After is a floor: the wait is at least 1 s (plus jitter under 250 ms).
        self.assertGreaterEqual(retries[0].delay, 1.0)
        self.assertLess(retries[0].delay, 1.25)

    def test_callers_key_is_kept_and_a_new_call_gets_a_new_one(self):
        limited_now = dict(RATE_LIMITED, headers={"retry-after": "0"})
        server = self.scripted([limited_now, EXECUTED, EXECUTED, EXECUTED])
        amp = Amp(bearer_token="tok", tenant_id="tenant-2", base_url=server.url)
        amp.modules.execute("text", "slugify", idempotency_key="my-key-1")
        amp.modules.execute("text", "slugify")
        keys = [s["headers"].get("idempotency-key") for s in server.seen]
        self.assertEqual(keys[:2], ["my-key-1", "my-key-1"])
        self.assertNotEqual(keys[2], "my-key-1")
        first = server.seen[0]["headers"]
        self.assertEqual(first["authorization"], "Bearer tok")
        self.assertEqual(first["x-tenant-id"], "tenant-2")
        amp.modules.get("text")
        self.assertIsNone(server.seen[3]["headers"].get("idempotency-key"))

    def test_dropped_connection_and_503_are_retried_then_it_gives_up(self):
        unavailable = {"status": 503, "headers": {"retry-after": "0"}, "body": {"error": "unavailable", "message": "Down."}}
        server = self.scripted(["drop", unavailable, EXECUTED])
        retries = []
        amp = Amp(api_key="k", base_url=server.url, initial_retry_delay=0.01, on_retry=retries.append)
        self.assertEqual(amp.modules.execute("text", "slugify").execution_id, "exe_1")
        self.assertEqual([r.status for r in retries], [None, 503])
        self.assertIsInstance(retries[0].error, ConnectionError)
        keys = {s["headers"].get("idempotency-key") for s in server.seen}
        self.assertEqual(len(server.seen), 3)
        self.assertEqual(len(keys), 1)
        self.assertIsNotNone(next(iter(keys)))

        always = self.scripted([dict(RATE_LIMITED, headers={"retry-after": "0", "x-request-id": "req_limited"})])
        limited = Amp(api_key="k", base_url=always.url, max_retries=2)
        with self.assertRaises(RateLimitError) as caught:
            limited.keys.list()
        self.assertEqual((caught.exception.status, caught.exception.code), (429, "rate_limit_exceeded"))
        self.assertEqual(caught.exception.request_id, "req_limited")
        self.assertEqual(caught.exception.retry_after, 0)
        self.assertEqual(len(always.seen), 3)

    def test_a_gateway_error_without_the_api_body_is_unavailable(self):
        for status in (502, 504):
            proxy = self.scripted([{"status": status, "body": "<html>Bad Gateway</html>"}])
            with self.assertRaises(ServerError) as caught:
                Amp(api_key="k", base_url=proxy.url, max_retries=0).modules.get("text")
            self.assertEqual((caught.exception.status, caught.exception.code), (status, "unavailable"))
        api = self.scripted([{"status": 502, "body": {"error": "module_error", "message": "The action failed.", "request_id": "r1"}}])
        with self.assertRaises(ServerError) as caught:
            Amp(api_key="k", base_url=api.url, max_retries=0).modules.get("text")
        self.assertEqual(caught.exception.code, "module_error")

    def test_404_and_a_retry_after_beyond_the_cap_are_not_retried(self):
        not_found = self.scripted([{"status": 404, "body": {"error": "not_found", "message": "No such module.", "request_id": "r1"}}])
        with self.assertRaises(NotFoundError):
            Amp(api_key="k", base_url=not_found.url).modules.get("nope")
        self.assertEqual(len(not_found.seen), 1)
        quota = self.scripted([dict(RATE_LIMITED, headers={"retry-after": "86400"})])
        with self.assertRaises(RateLimitError):
            Amp(api_key="k", base_url=quota.url, max_retry_delay=5).modules.execute("text", "slugify")
        self.assertEqual(len(quota.seen), 1)

    def test_a_read_that_times_out_is_retried_then_raises_timeout_error(self):
        slow = {"status": 200, "delay": 1.0, "body": {}}
        server = self.scripted([slow])
        retries = []
        amp = Amp(api_key="k", base_url=server.url, timeout=0.2, max_retries=1, initial_retry_delay=0.01, on_retry=retries.append)
        with self.assertRaises(TimeoutError) as caught:
            amp.modules.get("text")
        self.assertIsInstance(caught.exception, ConnectionError)
        self.assertEqual(len(retries), 1)
        self.assertIsInstance(retries[0].error, TimeoutError)


if __name__ == "__main__":
    unittest.main()
