"""events.stream() against a local SSE server that drops the connection: the reconnect resumes
with Last-Event-ID, losing and repeating nothing; a refusal raises its typed error."""
import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from amp_client import Amp, PermissionDeniedError  # noqa: E402


def envelope(event_id):
    return json.dumps({"id": event_id, "event": "execution.completed", "timestamp": "2026-11-29T00:00:00Z", "data": {"n": event_id}})


class StreamTest(unittest.TestCase):
    def serve(self, handler):
        seen = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                seen.append({"path": self.path, "last_event_id": self.headers.get("last-event-id")})
                handler(self, len(seen))

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()

        def close():
            server.shutdown()
            server.server_close()

        self.addCleanup(close)
        return "http://127.0.0.1:%d" % server.server_address[1], seen

    def test_reconnects_after_a_drop_with_last_event_id(self):
        def handler(req, n):
            req.send_response(200)
            req.send_header("content-type", "text/event-stream")
            req.send_header("connection", "close")
            req.end_headers()
            if n == 1:
                req.wfile.write(("retry: 10\n: connected\n\nid: evt_1\nevent: execution.completed\ndata: %s\n\n" % envelope("evt_1")).encode())
            else:
                req.wfile.write(("retry: 10\n\nid: evt_2\r\nevent: execution.completed\r\ndata: %s\r\n\r\n" % envelope("evt_2")).encode())
            req.wfile.flush()
            req.close_connection = True  # the drop

        url, seen = self.serve(handler)
        amp = Amp(api_key="amp_test", base_url=url)
        got = []
        stream = amp.events.stream(["execution.completed"])
        for event in stream:
            got.append(event)
            if len(got) == 2:
                break
        stream.close()
        self.assertEqual([e.id for e in got], ["evt_1", "evt_2"])
        self.assertEqual(got[1].data, {"n": "evt_2"})
        self.assertEqual([s["last_event_id"] for s in seen[:2]], [None, "evt_1"])
        self.assertIn("events=execution.completed", seen[0]["path"])

    def test_a_refusal_raises_and_reconnect_false_ends(self):
        def refuse(req, n):
            body = json.dumps({"error": "plan_required", "message": "Pro plan needed.", "request_id": "req_1"}).encode()
            req.send_response(403)
            req.send_header("content-type", "application/json")
            req.send_header("content-length", str(len(body)))
            req.end_headers()
            req.wfile.write(body)

        url, _ = self.serve(refuse)
        with self.assertRaises(PermissionDeniedError) as caught:
            next(Amp(api_key="k", base_url=url).events.stream())
        self.assertEqual(caught.exception.code, "plan_required")

        def one(req, n):
            req.send_response(200)
            req.send_header("content-type", "text/event-stream")
            req.send_header("connection", "close")
            req.end_headers()
            req.wfile.write(("id: evt_9\ndata: %s\n\n" % envelope("evt_9")).encode())
            req.close_connection = True

        url, seen = self.serve(one)
        self.assertEqual([e.id for e in Amp(api_key="k", base_url=url).events.stream(after="evt_8", reconnect=False)], ["evt_9"])
        self.assertIn("after=evt_8", seen[0]["path"])


if __name__ == "__main__":
    unittest.main()
