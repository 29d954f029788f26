"""A webhook receiver on the standard library's http.server: it verifies each delivery's
Standard Webhooks signature with the Python client's ``verify_webhook`` against the raw body,
answers 200 and prints the event (400 and the reason when the signature does not hold).

    AMP_WEBHOOK_SECRET=whsec_... PORT=4243 python3 examples/webhook-receiver-python/receiver.py
"""
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The client from this repository (or `pip install ./packages/python` and drop this line).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packages", "python"))

from amp_client import WebhookVerificationError, verify_webhook  # noqa: E402

SECRET = os.environ.get("AMP_WEBHOOK_SECRET")
PORT = int(os.environ.get("PORT", "4243"))


OUTPUT = threading.Lock()


def say(line):
    """Writes one whole line: requests run on threads, and print() writes a text and its newline apart."""
    with OUTPUT:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        if self.path != "/hooks":
            return self.answer(404, {"error": "not_found"})
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            return self.answer(400, {"error": "invalid_content_length"})
        if length < 0 or length > 1024 * 1024:
            return self.answer(413, {"error": "payload_too_large"})
        # The raw bytes, never re-serialized JSON: the signature covers them exactly.
        raw = self.rfile.read(length)
        try:
            event = verify_webhook(raw, self.headers, SECRET)
        except WebhookVerificationError as err:
            say("rejected %s" % err.reason)
            return self.answer(400, {"error": err.reason})
        say("verified %s %s %s" % (event.event, event.id, json.dumps(event.data, separators=(",", ":"))))
        self.answer(200, {"received": True})


def main():
    if not SECRET:
        print("Set AMP_WEBHOOK_SECRET to the subscription's signing secret (whsec_...).", file=sys.stderr)
        sys.exit(2)
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    # SIGTERM stops it like Ctrl-C does (shutdown must come from another thread).
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print("listening on http://127.0.0.1:%d/hooks" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    server.server_close()


if __name__ == "__main__":
    main()
