#!/usr/bin/env python3
"""The provider's contact-jobs endpoint (Interface A, §4.1) and its event sender (§3 step 5, §4.2), written from the
spec alone in Python 3.11's standard library (http.server, urllib.request, threads).

    CAI_SECRET=<jobs secret> CAI_CALLBACK_SECRET=<events secret> python3 receiver_a.py --source PLATFORM_ID
        --provider CODE [--port N] [--no-callbacks] [--base-delay MS]

It binds 127.0.0.1, prints its base address (the provider endpoint) as the first line of stdout, then one line per
job it starts (`job <event_id as JSON> <provider_job_id>`), and runs until SIGTERM.

Choices of its own (where the Node provider chose otherwise): HTTP/1.0, one connection per request; the
acknowledgment carries an extra field; error answers have an empty body; `null` counts as absent; the
conversation is two messages and job.closed, sent from a thread, and it stops at the first event refused.
"""
import argparse
import email.utils
import hmac
import json
import os
import re
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler

sys.dont_write_bytecode = True  # no __pycache__ left next to the zoo
from zoo_http import is_date_time, read_body, serve, sign

WINDOW = 300  # §5.5
MAX_JOB = 512 * 1024  # §8 states 256 KB for events; a job may be up to twice that here
CHANNELS = {"landing_form", "contact_form", "webchat", "whatsapp_button", "phone", "referral"}  # §2.8
INTENTS = {"book_appointment", "pricing_information", "service_information", "reschedule", "follow_up", "other"}  # §2.9
E164 = re.compile(r"\+[1-9][0-9]{6,14}")
# §2.1 BCP 47, simplified: language, script, region, variants, extensions, private use.
BCP47 = re.compile(r"(?i)([a-z]{2,3}(-[a-z]{3}){0,3}|[a-z]{4,8})(-[a-z]{4})?(-([a-z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(-[0-9a-wy-z](-[a-z0-9]{2,8})+)*(-x(-[a-z0-9]{1,8})+)?|x(-[a-z0-9]{1,8})+")


def job_problem(job):
    """§2.2: the problem, or None."""
    if not isinstance(job, dict):
        return "not an object"
    for name in ("lead_id", "event_id", "branch_code", "callback_url"):
        if not isinstance(job.get(name), str) or not job[name]:
            return f"{name} missing"
    contact = job.get("contact")
    if not isinstance(contact, dict) or not isinstance(contact.get("name"), str):
        return "contact.name missing"
    if not isinstance(contact.get("phone_e164"), str) or not E164.fullmatch(contact["phone_e164"]):
        return "contact.phone_e164 is not E.164"
    checks = [
        (job, "city", lambda v: isinstance(v, str)),
        (contact, "email", lambda v: isinstance(v, str)),
        (contact, "language", lambda v: isinstance(v, str) and BCP47.fullmatch(v) is not None),
    ]
    for name, rules in (("origin", {"channel": lambda v: isinstance(v, str) and v in CHANNELS, "source": lambda v: isinstance(v, str),
                                    "campaign": lambda v: isinstance(v, str), "captured_at": is_date_time}),
                        ("brief", {"intent": lambda v: isinstance(v, str) and v in INTENTS, "notes": lambda v: isinstance(v, str)})):
        part = job.get(name)
        if part is None:
            continue
        if not isinstance(part, dict):
            return f"{name} is not an object"
        checks += [(part, field, rule) for field, rule in rules.items()]
    for holder, field, rule in checks:
        if holder.get(field) is not None and not rule(holder[field]):
            return f"{field} is not valid"
    return None


def wait_for(retry_after, backoff):
    """§7: Retry-After in seconds or as an HTTP-date; the backoff when it is absent or unreadable."""
    if retry_after is None:
        return backoff
    if retry_after.strip().isdigit():
        return int(retry_after.strip())
    try:
        when = email.utils.parsedate_to_datetime(retry_after)
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds()) + 0.05
    except (TypeError, ValueError):
        return backoff


def deliver(url, event, server):
    """POST one event (§4.2) with the §7 client actions; True when accepted."""
    body = json.dumps(event, ensure_ascii=False).encode("utf-8")
    started, attempt = time.monotonic(), 0
    while True:
        attempt += 1
        timestamp = str(int(time.time()))
        request = urllib.request.Request(url, data=body, method="POST", headers={
            "Content-Type": "application/json", "X-CAI-Provider": server.provider,
            "X-CAI-Timestamp": timestamp, "X-CAI-Signature": sign(server.events_secret, timestamp, body)})
        backoff = server.base_delay * 2 ** (attempt - 1)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
                return True  # a 2xx (§6.5); urllib follows no redirect on POST, and raises on the rest
        except urllib.error.HTTPError as error:
            if error.code == 429:
                wait = wait_for(error.headers.get("Retry-After"), backoff)
            elif error.code >= 500:
                wait = backoff
            else:
                return False  # 400, 401, 413 and the other refusals are not retried
        except (urllib.error.URLError, OSError):
            wait = backoff
        if time.monotonic() + wait - started > server.retry_for:
            return False
        time.sleep(wait)


def converse(job, ack, server):
    """§3 step 5: two messages, then job.closed; it stops at the first event not accepted."""
    def stamp():
        return datetime.now(timezone.utc).astimezone().isoformat()
    common = {"lead_id": job["lead_id"]}
    events = [
        {"event": "conversation.message", "event_id": f"zoo-py-pa-{uuid.uuid4()}", **common, "provider_job_id": ack["provider_job_id"],
         "channel": "sms", "direction": "outbound", "author": "agent", "from_number_e164": ack["assigned_number_e164"],
         "text": f"Buenos días, {job['contact']['name']}.", "occurred_at": stamp()},
        {"event": "conversation.message", "event_id": f"zoo-py-pa-{uuid.uuid4()}", **common, "provider_job_id": ack["provider_job_id"],
         "channel": "sms", "direction": "inbound", "author": "contact", "text": "No, gracias.", "occurred_at": stamp()},
        {"event": "job.closed", "event_id": f"zoo-py-pa-{uuid.uuid4()}", **common, "outcome": "not_interested", "attempts": 1, "occurred_at": stamp()},
    ]
    for event in events:
        time.sleep(0.02)
        event["occurred_at"] = stamp()
        if not deliver(job["callback_url"], event, server):
            print(f"zoo provider: event {event['event_id']} not accepted; the conversation stops", file=sys.stderr, flush=True)
            return


class Handler(BaseHTTPRequestHandler):
    server_version = "zoo-python-provider/1.0"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode("utf-8")
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        server = self.server
        try:
            body = read_body(self, MAX_JOB)
        except ValueError:
            self.close_connection = True
            return self.reply(400)
        if self.path.split("?")[0] != "/contact-jobs":
            return self.reply(404)
        if body is None:
            return self.reply(413)
        if self.headers.get("X-CAI-Source") != server.source:
            return self.reply(401)
        timestamp = self.headers.get("X-CAI-Timestamp") or ""
        if not timestamp.isascii() or not timestamp.isdigit() or abs(int(time.time()) - int(timestamp)) > WINDOW:
            return self.reply(401)
        if not hmac.compare_digest(self.headers.get("X-CAI-Signature", "").encode("utf-8", "replace"), sign(server.jobs_secret, timestamp, body).encode()):
            return self.reply(401)
        try:
            job = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):  # RFC 8259 §9: a parser may limit nesting
            return self.reply(400)
        if job_problem(job) is not None:
            return self.reply(400)
        with server.lock:  # §2.2: a repeated event_id is ignored, even when the repeats arrive together
            ack = server.jobs.get(job["event_id"])
            new = ack is None
            if new:
                n = len(server.jobs) + 1
                ack = {"provider_job_id": f"PJ{n:06d}", "assigned_number_e164": "+3491" + str(7000000 + n % 1000000)}
                server.jobs[job["event_id"]] = ack
        self.reply(202, {**ack, "status": "queued"})
        if new:
            print(f"job {json.dumps(job['event_id'])} {ack['provider_job_id']}", flush=True)
            if server.callbacks:
                threading.Thread(target=converse, args=(job, ack, server), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--provider", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-callbacks", action="store_true")
    parser.add_argument("--base-delay", type=float, default=150)
    parser.add_argument("--retry-for", type=float, default=30_000)
    args = parser.parse_args()
    jobs_secret, events_secret = os.environ.get("CAI_SECRET"), os.environ.get("CAI_CALLBACK_SECRET")
    if not jobs_secret or (not args.no_callbacks and not events_secret):
        print("zoo provider: set $CAI_SECRET (jobs) and $CAI_CALLBACK_SECRET (events)", file=sys.stderr)
        return 2
    return serve(Handler, args.port, "", source=args.source, provider=args.provider, callbacks=not args.no_callbacks,
                 jobs_secret=jobs_secret.encode(), events_secret=(events_secret or "").encode(),
                 base_delay=args.base_delay / 1000, retry_for=args.retry_for / 1000, jobs={})

if __name__ == "__main__":
    sys.exit(main())
