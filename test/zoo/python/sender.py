#!/usr/bin/env python3
"""A sender of either interface written from the spec alone, in Python 3.11's standard library (http.client).

A provider's event sender (B, §4.2) or a platform's job sender (A, §4.1). One run sends --count new documents to
$CAI_TARGET_URL one after the other, each with its own event_id, each delivered with the retry policy of §7 and §8,
and exits when each is settled: 0 all accepted, 1 one was refused, 3 one was given up. $CAI_SCENARIO is not read.

    python3 sender.py --interface B|A --identity CODE [--count N] [--keep-alive] [--pretty-crlf] [--charset]
        [--optional none|all|alternate] [--base-delay MS] [--retry-for MS] [--secret-env NAME]

Choices of its own (where the Node sender chose otherwise): timestamps with a numeric local offset, a backoff that
doubles with no jitter, `ensure_ascii` JSON (non-ASCII text sent as \\u escapes) unless --pretty-crlf.
"""
import argparse
import email.utils
import hashlib
import hmac
import http.client
import json
import os
import sys
import time
import uuid
from datetime import datetime, timezone, timedelta
from urllib.parse import urlsplit

LISBON = timezone(timedelta(hours=1))


def now_iso():
    """§2.1: ISO 8601 with an offset, here +01:00 rather than Z."""
    return datetime.now(LISBON).isoformat(timespec="seconds")


def make_event(i, run):
    """§2.5-§2.7, every type of §6 in turn."""
    base = {"event_id": f"zoo-py-{uuid.uuid4()}", "lead_id": f"lead-zoo-py-{run}", "occurred_at": now_iso()}
    kind = ["conversation.message", "appointment.booked", "job.closed"][i % 3]
    if kind == "conversation.message":
        return {"event": kind, **base, "channel": "sms", "direction": "outbound", "author": "human",
                "from_number_e164": "+34911234567", "text": "¡Hola! ¿Le viene bien el lunes?"}
    if kind == "job.closed":
        return {"event": kind, **base, "outcome": "no_answer", "attempts": 3}
    return {"event": kind, **base, "branch_code": "BR-MAD-02", "scheduled_at": "2026-04-06T09:30:00+02:00",
            "service": "revisión", "notes": "Primera visita."}


def make_job(i, run, optional):
    """§2.2, with every optional field, none, or every other job."""
    job = {"event_id": f"zoo-py-job-{uuid.uuid4()}", "lead_id": f"lead-zoo-py-{run}-{i}", "branch_code": "BR-MAD-02",
           "contact": {"phone_e164": "+34611223344", "name": "José Ñúñez"},
           "callback_url": "https://platform.example/cai/events"}
    if optional == "all" or (optional == "alternate" and i % 2 == 0):
        job["city"] = "Madrid"
        job["contact"]["language"] = "es-419"
        job["origin"] = {"channel": "webchat", "captured_at": now_iso()}
        job["brief"] = {"intent": "pricing_information", "notes": "Pregunta precios."}
    return job


def serialise(doc, pretty_crlf):
    """The bytes sent, signed exactly as they are (§5.2)."""
    if pretty_crlf:
        return json.dumps(doc, indent=4, ensure_ascii=False).replace("\n", "\r\n").encode("utf-8")
    return json.dumps(doc).encode("ascii")


def retry_after_seconds(value):
    """§7 Retry-After: a number of seconds, or an HTTP-date (RFC 9110 §10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds()) + 0.05


class Connection:
    """One HTTP connection kept for every attempt (--keep-alive), or a new one for each."""

    def __init__(self, url, keep_alive):
        self.parts = urlsplit(url)
        self.keep_alive = keep_alive
        self.conn = None

    def post(self, headers, body):
        path = self.parts.path or "/"
        if self.parts.query:
            path += "?" + self.parts.query
        if self.conn is None:
            cls = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
            self.conn = cls(self.parts.hostname, self.parts.port, timeout=10)
        try:
            self.conn.putrequest("POST", path, skip_accept_encoding=True)
            for name, value in headers:
                self.conn.putheader(name, value)
            if not self.keep_alive:
                self.conn.putheader("Connection", "close")
            self.conn.putheader("Content-Length", str(len(body)))
            self.conn.endheaders(body)
            response = self.conn.getresponse()
            response.read()
            if not self.keep_alive or response.will_close:
                self.close()
            return response.status, response.getheader("Retry-After"), None
        except (OSError, http.client.HTTPException) as error:
            # A cut connection, or a kept one the server had closed meanwhile: either way a network failure, retried
            # after the backoff on a new connection.
            self.close()
            return None, None, error

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def deliver(conn, body, identity_header, args, secret):
    """§7, §8: retry 5xx and network failures with a doubling backoff, 429 after Retry-After; 2xx is final and
    accepted (§6.5), other 4xx final and refused. Same bytes on every attempt, signed afresh."""
    started = time.monotonic()
    content_type = "application/json; charset=utf-8" if args.charset else "application/json"
    attempt = 0
    while True:
        attempt += 1
        timestamp = str(int(time.time()))
        mac = hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
        headers = [("Content-Type", content_type), identity_header, ("X-CAI-Timestamp", timestamp),
                   ("X-CAI-Signature", "sha256=" + mac)]
        status, retry_after, error = conn.post(headers, body)
        backoff = min(10.0, args.base_delay / 1000 * 2 ** (attempt - 1))
        if error is None and 200 <= status < 300:
            return "accepted"
        if error is not None or status >= 500:
            wait = backoff
        elif status == 429:
            seconds = retry_after_seconds(retry_after)
            wait = backoff if seconds is None else seconds
        else:
            return "refused"
        if time.monotonic() + wait - started > args.retry_for / 1000:
            return "gave up"
        time.sleep(wait)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interface", choices=["A", "B"], required=True)
    parser.add_argument("--identity", required=True)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--keep-alive", action="store_true")
    parser.add_argument("--pretty-crlf", action="store_true")
    parser.add_argument("--charset", action="store_true")
    parser.add_argument("--optional", choices=["none", "all", "alternate"], default="none")
    parser.add_argument("--base-delay", type=float, default=100)
    parser.add_argument("--retry-for", type=float, default=60_000)
    parser.add_argument("--secret-env", default="CAI_SECRET")
    args = parser.parse_args()
    secret = os.environ.get(args.secret_env)
    base = os.environ.get("CAI_TARGET_URL")
    if not secret or not base:
        print(f"zoo sender: set ${args.secret_env} and $CAI_TARGET_URL", file=sys.stderr)
        return 2
    url = base if args.interface == "B" else base.rstrip("/") + "/contact-jobs"
    identity = ("X-CAI-Provider" if args.interface == "B" else "X-CAI-Source", args.identity)
    run = uuid.uuid4().hex[:8]
    conn = Connection(url, args.keep_alive)
    outcomes = []
    for i in range(args.count):
        doc = make_event(i, run) if args.interface == "B" else make_job(i, run, args.optional)
        outcomes.append(deliver(conn, serialise(doc, args.pretty_crlf), identity, args, secret.encode("utf-8")))
    conn.close()
    print(f"zoo sender: {len(outcomes)} documents: " + ", ".join(f"{outcomes.count(o)} {o}" for o in ("accepted", "refused", "gave up")), file=sys.stderr)
    return 3 if "gave up" in outcomes else 1 if "refused" in outcomes else 0


if __name__ == "__main__":
    sys.exit(main())
