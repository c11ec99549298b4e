#!/usr/bin/env python3
"""The platform's events endpoint (Interface B, §4.2), written from the spec alone in Python 3.11's standard library
(http.server's ThreadingHTTPServer, HTTP/1.1 keep-alive).

    CAI_SECRET=... python3 receiver_b.py --provider CODE [--port N] [--fault reserialised|compact]

It binds 127.0.0.1, prints its events URL as the first line of stdout, then one line per event it records
(`recorded <event_id as JSON>`), and runs until SIGTERM.

Choices of its own (where the Node receiver chose otherwise): a first-time event gets 202 with extra fields; error
answers are one line of text/plain; `null` for an optional field counts as absent; date-times are read by
datetime.fromisoformat (with a `T` and an offset); a Content-Type other than JSON is refused with 400.

The two faults are the usual first-day mistake, verifying the signature over a re-serialisation of the body rather
than the raw bytes (§5.2): `reserialised` over `json.dumps(json.loads(body))`, `compact` over
`json.dumps(obj, separators=(",", ":"))`.
"""
import argparse
import hmac
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

sys.dont_write_bytecode = True  # no __pycache__ left next to the zoo
from zoo_http import is_date_time, read_body, serve, sign

# §8: "256 KB maximum, over it 413". Read as 256 x 1024 = 262 144 bytes: a sender that reads KB as KiB may send that
# much, and refusing it would refuse a conforming sender.
MAX_BODY = 256 * 1024
WINDOW = 300  # §5.5, either way
MAX_EVENT_ID = 120  # §6.1, §8: characters (Python's len counts code points)

EVENT_TYPES = {"conversation.message", "appointment.booked", "appointment.rescheduled", "appointment.cancelled", "job.closed"}
CHANNEL = {"whatsapp", "webchat", "sms", "phone", "email"}  # §2.10
DIRECTION = {"inbound", "outbound"}  # §2.10
AUTHOR = {"agent", "contact", "human"}  # §2.11
OUTCOME = {"no_answer", "not_interested", "wrong_number", "callback_later", "opted_out"}  # §2.12
E164 = re.compile(r"\+[1-9][0-9]{6,14}")  # §2.1: the longest number has 15 digits; none in use has fewer than 7


class Invalid(Exception):
    pass


def check_event(doc):
    """§2.4-§2.7 and §6: raises Invalid. Only event and event_id are required (§2.4); unknown fields are ignored (§9.2)."""
    if not isinstance(doc, dict):
        raise Invalid("the body is not a JSON object")
    if not isinstance(doc.get("event"), str) or doc["event"] not in EVENT_TYPES:
        raise Invalid("event is missing or unknown")
    event_id = doc.get("event_id")
    if not isinstance(event_id, str) or not 1 <= len(event_id) <= MAX_EVENT_ID:
        raise Invalid("event_id must be a string of 1 to 120 characters")
    text = lambda v: isinstance(v, str)
    rules = {
        "lead_id": text, "provider_job_id": text, "text": text,
        "channel": lambda v: isinstance(v, str) and v in CHANNEL, "direction": lambda v: isinstance(v, str) and v in DIRECTION,
        "author": lambda v: isinstance(v, str) and v in AUTHOR,
        "from_number_e164": lambda v: isinstance(v, str) and E164.fullmatch(v) is not None,
        "occurred_at": is_date_time,
    }
    if doc["event"].startswith("appointment."):
        rules.update(branch_code=text, scheduled_at=is_date_time, service=text, notes=text)
    elif doc["event"] == "job.closed":
        # bool is an int in Python: true is not a number of attempts.
        rules.update(outcome=lambda v: isinstance(v, str) and v in OUTCOME, attempts=lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)
    for name, ok in rules.items():
        value = doc.get(name)
        if value is not None and not ok(value):
            raise Invalid(f"{name} is not valid")


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse(body):
    return json.loads(body.decode("utf-8"), parse_constant=refuse_constant)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "zoo-python-receiver/1.0"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/plain; charset=utf-8"):
        data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
        if not isinstance(body, str):
            content_type = "application/json"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        try:
            body = read_body(self, MAX_BODY)
        except ValueError:
            self.close_connection = True
            return self.answer(400, "unreadable body\n")
        if urlsplit(self.path).path != "/events":
            return self.answer(404, "no such endpoint\n")
        if body is None:
            return self.answer(413, "body larger than 256 KB\n")
        self.judge(body)

    def judge(self, body):
        server = self.server
        if self.headers.get("X-CAI-Provider") != server.provider:  # §5.6
            return self.answer(401, "unrecognised provider\n")
        timestamp = self.headers.get("X-CAI-Timestamp", "")
        if not re.fullmatch(r"[1-9][0-9]*", timestamp) or abs(int(time.time()) - int(timestamp)) > WINDOW:  # §5.4, §5.5
            return self.answer(401, "timestamp missing, malformed or outside the window\n")
        signed = body
        if server.fault in ("reserialised", "compact"):
            try:
                obj = parse(body)
                signed = (json.dumps(obj) if server.fault == "reserialised" else json.dumps(obj, separators=(",", ":"))).encode("utf-8")
            except (ValueError, RecursionError):  # nested deeper than the parser goes (RFC 8259 §9: a limit is allowed)
                return self.answer(400, "not JSON\n")
        expected = sign(server.secret, timestamp, signed)
        given = self.headers.get("X-CAI-Signature", "")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("ascii")):  # §5.2, §5.3, §5.5
            return self.answer(401, "invalid signature\n")
        media = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if media != "application/json":  # §2
            return self.answer(400, "Content-Type must be application/json\n")
        try:
            doc = parse(body)
            check_event(doc)
        except (ValueError, Invalid) as problem:
            return self.answer(400, f"invalid event: {problem}\n")
        except RecursionError:  # nested deeper than the parser goes (RFC 8259 §9: a limit is allowed)
            return self.answer(400, "invalid event: nested too deeply\n")
        with server.lock:  # §6.1: one record per event_id, even for concurrent repeats
            duplicate = doc["event_id"] in server.seen
            server.seen.add(doc["event_id"])
        if duplicate:
            return self.answer(202, {"ok": True, "duplicate": True})  # §2.13
        print("recorded " + json.dumps(doc["event_id"]), flush=True)
        self.answer(202, {"ok": True, "status": "accepted", "event_id": doc["event_id"]})

    def do_GET(self):
        self.answer(405, "POST only\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault", choices=["none", "reserialised", "compact"], default="none")
    args = parser.parse_args()
    secret = os.environ.get("CAI_SECRET")
    if not secret:
        print("zoo receiver: set $CAI_SECRET", file=sys.stderr)
        return 2
    return serve(Handler, args.port, "/events", provider=args.provider, fault=args.fault, secret=secret.encode("utf-8"), seen=set())

if __name__ == "__main__":
    sys.exit(main())
