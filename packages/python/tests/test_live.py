"""The client against a real service: AMP_BASE_URL and AMP_API_KEY (a Pro tenant's primary key,
scope "*"; the service must allow webhook receivers on loopback). tests/sdk/python.test.ts starts
the service and runs this suite; without those variables it is skipped."""
import os
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from amp_client import (  # noqa: E402
    Amp,
    ApiError,
    ApiKey,
    BadRequestError,
    ConflictError,
    Execution,
    ExecutionResult,
    MemoryEntry,
    Module,
    NotFoundError,
    Page,
    PermissionDeniedError,
    WebhookVerificationError,
    WorkflowRun,
    verify_webhook,
)

BASE_URL = os.environ.get("AMP_BASE_URL")
API_KEY = os.environ.get("AMP_API_KEY")


class Receiver:
    """A local webhook receiver recording each request's raw body and headers."""

    def __init__(self):
        self.received = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                with outer.arrived:
                    outer.received.append({"raw": raw, "headers": self.headers})
                    outer.arrived.notify_all()
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/hooks" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, n, timeout=15):
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= n, timeout)
        return self.received

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@unittest.skipUnless(BASE_URL and API_KEY, "AMP_BASE_URL and AMP_API_KEY not set (tests/sdk/python.test.ts sets them)")
class LiveTest(unittest.TestCase):
    amp: Amp

    @classmethod
    def setUpClass(cls):
        cls.amp = Amp(api_key=API_KEY, base_url=BASE_URL)

    def test_me_get_execute_and_the_execution_record(self):
        self.assertEqual(self.amp.me()["plan"], "pro")
        text = self.amp.modules.get("text")
        self.assertIsInstance(text, Module)
        self.assertEqual(text.name, "text")
        self.assertIn("slugify", [a["name"] for a in text.actions])
        result = self.amp.modules.execute("text", "slugify", {"text": "Hello Python World"})
        self.assertIsInstance(result, ExecutionResult)
        self.assertEqual((result.module, result.action, result.status), ("text", "slugify", "success"))
        self.assertEqual(result.output, {"slug": "hello-python-world"})
        record = self.amp.executions.get(result.execution_id)
        self.assertIsInstance(record, Execution)
        self.assertEqual((record.execution_id, record.status), (result.execution_id, "success"))
        self.assertIn(result.execution_id, [e.execution_id for e in self.amp.executions.list(limit=5).data])
        found = self.amp.modules.search("slug")
        self.assertGreater(len(found["data"]), 0)
        self.assertEqual(self.amp.modules.install("text")["module"], "text")
        self.assertEqual(self.amp.modules.uninstall("text")["installed"], False)

    def test_typed_errors_404_400_with_issues_403(self):
        with self.assertRaises(NotFoundError) as caught:
            self.amp.modules.get("no-such-module")
        err = caught.exception
        self.assertIsInstance(err, ApiError)
        self.assertEqual((err.status, err.code), (404, "not_found"))
        self.assertRegex(err.request_id, r"^req_")
        self.assertRegex(err.doc_url, r"/docs/errors#not_found$")
        self.assertTrue(err.message)

        with self.assertRaises(BadRequestError) as caught:
            self.amp.executions.list(limit=1000)
        self.assertEqual((caught.exception.status, caught.exception.code), (400, "invalid_request"))
        self.assertEqual([i["path"] for i in caught.exception.issues], ["limit"])
        self.assertTrue(caught.exception.issues[0]["message"])

        narrow = self.amp.keys.create("py-read-only", scopes=["modules:read"])
        read_only = Amp(api_key=narrow.api_key, base_url=BASE_URL)
        with self.assertRaises(PermissionDeniedError) as caught:
            read_only.modules.execute("text", "slugify", {"text": "x"})
        self.assertEqual((caught.exception.code, caught.exception.body["required_scope"]), ("insufficient_scope", "modules:execute"))
        self.amp.keys.revoke(narrow.key_id)

    def test_pagination_across_pages(self):
        for i in range(5):
            entry = self.amp.memory.set("py-pager", "k%d" % i, {"i": i})
            self.assertIsInstance(entry, MemoryEntry)
        self.assertEqual(self.amp.memory.get("py-pager", "k3").value, {"i": 3})
        first = self.amp.memory.list("py-pager", limit=2)
        self.assertIsInstance(first, Page)
        self.assertEqual(len(first.data), 2)
        self.assertTrue(first.has_more and first.has_next_page())
        second = first.next_page()
        self.assertNotIn(first.data[0].key, [e.key for e in second.data])
        self.assertEqual(sorted(e.key for e in self.amp.memory.list_all("py-pager", limit=2)), ["k0", "k1", "k2", "k3", "k4"])
        self.assertEqual(sum(1 for p in first.pages() if p.data), 3)
        self.assertIn("py-pager", [a["agent_id"] for a in self.amp.memory.agents()["data"]])
        self.amp.memory.delete("py-pager", "k4")
        with self.assertRaises(NotFoundError):
            self.amp.memory.get("py-pager", "k4")

        created = [self.amp.keys.create("py-page-%d" % i, scopes=["modules:read"]) for i in range(3)]
        ids = [k.key_id for k in self.amp.keys.list_all(limit=1)]
        self.assertEqual(len(ids), len(set(ids)))
        for key in created:
            self.assertIn(key.key_id, ids)
        got = self.amp.keys.get(created[0].key_id)
        self.assertIsInstance(got, ApiKey)
        self.assertEqual(got.name, "py-page-0")
        usage = self.amp.keys.usage(created[0].key_id)
        self.assertEqual(usage["key_id"], created[0].key_id)
        rotated = self.amp.keys.rotate(created[0].key_id, grace_seconds=0)
        self.assertNotEqual(rotated.api_key, created[0].api_key)
        self.assertIsNotNone(rotated.rotated_at)
        for key in created:
            self.assertTrue(self.amp.keys.revoke(key.key_id)["revoked"])

        names = [m.name for m in self.amp.modules.list_all(limit=7)]
        self.assertEqual(len(names), len(set(names)))
        self.assertGreater(len(names), 7)

    def test_a_real_signed_delivery_verifies_and_tampered_or_expired_ones_do_not(self):
        receiver = Receiver()
        self.addCleanup(receiver.close)
        hook = self.amp.webhooks.create(receiver.url, ["execution.completed"])
        self.assertRegex(hook.secret, r"^whsec_")
        self.assertTrue(self.amp.webhooks.test(hook.id)["delivered"])
        [delivery] = receiver.wait_for(1)
        raw, headers = delivery["raw"], delivery["headers"]
        envelope = verify_webhook(raw, headers, hook.secret)
        self.assertEqual(envelope.id, headers["webhook-id"])
        self.assertTrue(envelope.get("test"))
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(raw + b" ", headers, hook.secret)
        self.assertEqual(caught.exception.reason, "invalid_signature")
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(raw, headers, hook.secret, now=int(headers["webhook-timestamp"]) + 301)
        self.assertEqual(caught.exception.reason, "timestamp_too_old")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(raw, dict(headers, **{"webhook-id": "evt_other"}), hook.secret)

        deliveries = self.amp.webhooks.deliveries(hook.id)
        self.assertIsInstance(deliveries, list)
        kinds = [t["type"] for t in self.amp.webhooks.event_types()["data"]]
        self.assertIn("execution.completed", kinds)
        self.assertIn(hook.id, [w.id for w in self.amp.webhooks.list_all()])
        self.assertEqual(self.amp.webhooks.get(hook.id).url, receiver.url)
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        self.assertIn("replayed", self.amp.webhooks.replay(hook.id, since))
        self.assertIn("recovered", self.amp.webhooks.recover(hook.id, since))
        updated = self.amp.webhooks.update(hook.id, events=["execution.completed", "execution.failed"])
        self.assertEqual(updated.events, ["execution.completed", "execution.failed"])
        self.assertTrue(self.amp.webhooks.delete(hook.id)["deleted"])

    def test_poll_messages_iterate_across_pages(self):
        poll = self.amp.webhooks.create(events=["execution.completed"], kind="poll")
        start = self.amp.webhooks.messages(poll.id, after="now")
        for text in ("one", "two", "three"):
            self.amp.modules.execute("text", "slugify", {"text": text})
        polled = []
        for _ in range(50):
            polled = [m.id for m in self.amp.webhooks.messages(poll.id, after=start.next_cursor, limit=1)]
            if len(polled) >= 3:
                break
            time.sleep(0.1)
        self.assertEqual(len(set(polled)), 3)

        # The event stream from the same cursor answers the same events, in order.
        streamed = []
        stream = self.amp.events.stream(["execution.completed"], after=start.next_cursor)
        for event in stream:
            streamed.append(event)
            if len(streamed) == 3:
                break
        stream.close()
        self.assertEqual([e.id for e in streamed], polled)
        self.assertEqual(sorted(e.data["output"]["slug"] for e in streamed), ["one", "three", "two"])
        self.amp.webhooks.delete(poll.id)

    def test_workflows_usage_invoices_members_audit_log(self):
        wf = self.amp.workflows.create("py-slug", [{"id": "slug", "module": "text", "action": "slugify", "input": {"text": "{{input.title}}"}}])
        run = self.amp.workflows.run(wf.id, {"title": "Run Me"})
        self.assertRegex(run.run_id, r"^run_")
        self.assertIn(run.run_id, [r.run_id for r in self.amp.workflows.runs(wf.id).data])
        self.assertIn(wf.id, [w.id for w in self.amp.workflows.list_all()])
        self.assertEqual(self.amp.workflows.get_run(wf.id, run.run_id).run_id, run.run_id)
        self.assertEqual(self.amp.workflows.update(wf.id, "py-slug-2", wf.steps).name, "py-slug-2")
        self.assertTrue(self.amp.workflows.delete(wf.id)["deleted"])
        self.assertIsInstance(self.amp.usage.get(), dict)
        self.assertIsInstance(self.amp.rate_limit(), dict)
        armed = self.amp.arm(format="anthropic", query="slugify")
        self.assertIn("text__slugify", [t["name"] for t in armed["tools"]])
        self.assertIn("pro", [p["plan"] if isinstance(p, dict) and "plan" in p else p.get("id") for p in self.amp.plans.list()["data"]])
        self.assertIn("viewer", [r["role"] for r in self.amp.members.roles()["data"]])
        self.assertEqual(list(self.amp.invoices.list_all()), [])
        me = self.amp.members.me()
        self.assertEqual((me["kind"], me["scopes"]), ("api_key", ["*"]))
        self.assertEqual(self.amp.members.list().data, [])
        actions = [e.action for e in self.amp.audit_log.list_all(action="key.*")]
        self.assertIn("key.created", actions)
        # Answers that are not JSON come back as text.
        csv = self.amp.audit_log.csv(action="key.*")
        self.assertIsInstance(csv, str)
        self.assertIn("key.created", csv)
        self.assertTrue(self.amp.request("GET", "/api/llms.txt").startswith("#"))


    def _until(self, what, check, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = check()
            if found:
                return found
            time.sleep(0.2)
        self.fail("timed out waiting for " + what)

    def test_workflow_approve_reject_replay_and_bulk(self):
        wf = self.amp.workflows.create(
            "py-gated",
            [
                {"id": "propose", "module": "text", "action": "slugify", "input": {"text": "{{input.title}}"}},
                {"id": "ok", "kind": "approval", "prompt": "Publish?", "timeout": "1h", "depends_on": ["propose"]},
            ],
        )

        def step(run, id):
            return next(s for s in run.steps if s["id"] == id)

        def when(run_id, what, ready):
            def check():
                run = self.amp.workflows.get_run(wf.id, run_id)
                return run if ready(run) else None

            return self._until("%s %s" % (run_id, what), check)

        def waiting(run_id):
            return when(run_id, "to wait", lambda run: step(run, "ok")["status"] == "waiting")

        def finished(run_id):
            return when(run_id, "to finish", lambda run: run.status in ("completed", "failed", "cancelled"))

        first = self.amp.workflows.run(wf.id, {"title": "Yes"}).run_id
        waiting(first)
        approved = self.amp.workflows.approve_step(wf.id, first, "ok", comment="fine")
        self.assertIsInstance(approved, WorkflowRun)
        self.assertEqual(step(approved, "ok")["output"]["comment"], "fine")
        self.assertEqual(finished(first).status, "completed")
        with self.assertRaises(ConflictError):
            self.amp.workflows.reject_step(wf.id, first, "ok")

        second = self.amp.workflows.run(wf.id, {"title": "No"}).run_id
        waiting(second)
        self.amp.workflows.reject_step(wf.id, second, "ok", comment="not now")
        failed = finished(second)
        self.assertEqual((failed.status, failed.error["code"]), ("failed", "rejected"))
        replay = self.amp.workflows.replay_run(wf.id, second)
        self.assertEqual(replay["replay_of"], second)
        self.assertEqual(self.amp.workflows.replay_run(wf.id, second).run_id, replay.run_id)
        waiting(replay.run_id)
        bulk = self.amp.workflows.replay_runs(wf.id)
        self.assertEqual([r["run_id"] for r in bulk["runs"]], [replay.run_id])
        cancelled = self.amp.workflows.cancel_runs(wf.id, status="running")
        self.assertEqual((cancelled["cancelled"], cancelled["run_ids"], cancelled["has_more"]), (1, [replay.run_id], False))
        self.assertEqual(finished(replay.run_id).status, "cancelled")
        self.assertEqual(self.amp.workflows.replay_runs(wf.id, status="cancelled")["replayed"], 1)
        self.amp.workflows.delete(wf.id)

if __name__ == "__main__":
    unittest.main()
