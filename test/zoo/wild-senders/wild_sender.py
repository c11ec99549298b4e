#!/usr/bin/env python3
"""A sender of the interface written from interface-spec-v1.0.md alone (standard library only).

Interface B: a provider's event sender (POST to $CAI_TARGET_URL, the events URL, section 4.2).
Interface A: a platform's job sender (POST to $CAI_TARGET_URL/contact-jobs, section 4.1).
One run sends --count N new documents, one after the other, each delivered with the retry policy of sections 7
and 8, every attempt signed afresh (section 5), and exits once every one is settled: 0 all accepted, 1 one
refused, 3 one given up, 2 a usage error.

Choices of its own, all left open by the spec: json.dumps' default separators (", " and ": ") and raw UTF-8, or
\\u escapes (--ascii), or pretty-printed with CRLF line ends (--pretty-crlf); a key order of its own per document
(--key-order vary); date-times with non-UTC offsets; one kept-alive connection for the run (--connection one) or
one per attempt; lower-case header names; a doubling backoff; Retry-After as seconds or any HTTP-date form.

--fault NAME breaks one rule (FAULTS below); everything else stays correct.
"""
import argparse
import email.utils
import hashlib
import hmac
import http.client
import json
import os
import random
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

FAULTS = [
    {"name": "retry-after-ms", "interface": "B", "relation": "S3", "clause": "§7",
     "description": 'reads Retry-After as milliseconds: "Retry-After: 2" waits 2 ms (an HTTP-date is read right)'},
    {"name": "caps-retry-after", "interface": "B", "relation": "S3", "clause": "§7",
     "description": "puts every wait, Retry-After included, through its 1 s cap \"so no receiver can stall it\": a longer Retry-After is cut to 1 s"},
    {"name": "retry-after-first-only", "interface": "B", "relation": "S3", "clause": "§7",
     "description": "honours Retry-After on a document's first 429 only: a second 429 is retried after the own short backoff"},
    {"name": "no-retry-on-429", "interface": "A", "relation": "S3", "clause": "§7",
     "description": "treats every 4xx as final, 429 included: a rate-limited job is dropped"},
    {"name": "retries-413", "interface": "B", "relation": "S1", "clause": "§7",
     "description": "takes a 413 for a proxy's passing limit and retries it with backoff like a 5xx"},
    {"name": "shared-retry-clock", "interface": "B", "relation": "S2", "clause": "§8",
     "description": "measures the retry period from the start of the run, not from each document's first attempt: later documents are given up early"},
    {"name": "cut-retried-without-backoff", "interface": "B", "relation": "S2", "clause": "§7",
     "description": "backs off after a 5xx but retries a cut connection at once, in a tight loop"},
    {"name": "renames-after-cut", "interface": "A", "relation": "S6", "clause": "§2.2",
     "description": 'after a cut connection it "plays safe": the same job sent again under a new event_id'},
    {"name": "id-from-clock-seconds", "interface": "B", "relation": "S6", "clause": "§6.1",
     "description": 'event_id "ev-" + the unix second: two events created in the same second share an id'},
    {"name": "job-id-from-phone", "interface": "A", "relation": "S6", "clause": "§2.2",
     "description": "event_id a hash of the contact's phone and branch: a second job for the same contact reuses the first's id"},
    {"name": "rebuilds-job-on-retry", "interface": "A", "relation": "S4", "clause": "§2.2",
     "description": "rebuilds the job from the lead on each attempt and stamps origin.captured_at with the time of building"},
    {"name": "reorders-keys-on-retry", "interface": "B", "relation": "S4", "clause": "§6.1",
     "description": "re-serialises the stored event with sorted keys on retries: the same document, other bytes (S4: same bytes is best)"},
    {"name": "signature-not-refreshed", "interface": "A", "relation": "S5", "clause": "§5.3",
     "description": "computes the signature once, with the first timestamp, but sends a fresh X-CAI-Timestamp on every retry"},
    {"name": "ms-timestamp-on-retry", "interface": "B", "relation": "S5", "clause": "§5.4",
     "description": "the retry path stamps X-CAI-Timestamp in milliseconds (and signs with it): retries are outside the window"},
    {"name": "signs-pretty-sends-compact", "interface": "B", "relation": "S5", "clause": "§5.2",
     "description": "signs the pretty-printed form of the event but sends the compact one"},
    {"name": "form-content-type-on-retry", "interface": "A", "relation": "S7", "clause": "§2",
     "description": "the retry path leaves the media type to a helper default: retries go out as application/x-www-form-urlencoded"},
    {"name": "charset-latin1", "interface": "B", "relation": "S7", "clause": "§2",
     "description": "labels every body with its framework's default charset, application/json; charset=iso-8859-1, while it sends UTF-8"},
    {"name": "query-on-url", "interface": "A", "relation": "S7", "clause": "§4.1",
     "description": "adds its API version as a query: every job is POSTed to {provider_endpoint}/contact-jobs?api-version=1.0"},
]
FAULT_NAMES = [f["name"] for f in FAULTS]

EVENT_TYPES = ["conversation.message", "appointment.booked", "appointment.rescheduled", "appointment.cancelled", "job.closed"]
ORIGIN_CHANNELS = ["landing_form", "contact_form", "webchat", "whatsapp_button", "phone", "referral"]  # 2.8
INTENTS = ["book_appointment", "pricing_information", "service_information", "reschedule", "follow_up", "other"]  # 2.9
OUTCOMES = ["no_answer", "not_interested", "wrong_number", "callback_later", "opted_out"]  # 2.12
OFFSETS = [timedelta(hours=-3), timedelta(hours=5, minutes=45), timedelta(0), timedelta(hours=-9, minutes=-30), timedelta(hours=14)]


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_args(argv):
    p = Parser(prog="wild_sender.py", add_help=False)
    p.add_argument("--interface", choices=["A", "B"], default="B")
    p.add_argument("--identity", default=os.environ.get("CAI_IDENTITY", ""))
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--retry-for", type=int, default=60000)
    p.add_argument("--base-delay", type=int, default=200)
    p.add_argument("--max-delay", type=int, default=30000)
    p.add_argument("--callback-url", default="http://127.0.0.1:9/cai/events")
    p.add_argument("--secret-env", default="CAI_SECRET")
    p.add_argument("--fault", choices=FAULT_NAMES, default=None)
    p.add_argument("--pretty-crlf", action="store_true")
    p.add_argument("--ascii", action="store_true")
    p.add_argument("--key-order", choices=["insertion", "vary"], default="insertion")
    p.add_argument("--connection", choices=["per-attempt", "one"], default="per-attempt")
    p.add_argument("--optional", choices=["some", "all", "none"], default="some")
    p.add_argument("--extra-fields", action="store_true")
    p.add_argument("--varied-offsets", action="store_true")
    p.add_argument("--header-case", choices=["canonical", "lower"], default="canonical")
    p.add_argument("--types", choices=["conversation", "all"], default="conversation")
    p.add_argument("--timeout", type=int, default=30000)
    p.add_argument("--list-faults", action="store_true")
    o = p.parse_args(argv)
    if o.list_faults:
        return o
    for name, lo, hi in (("count", 1, 1000), ("retry_for", 0, 24 * 3600 * 1000), ("base_delay", 1, 600000),
                         ("max_delay", 1, 3600000), ("timeout", 100, 600000)):
        v = getattr(o, name)
        if not lo <= v <= hi:
            raise UsageError(f"--{name.replace('_', '-')} must be from {lo} to {hi}, got {v}")
    if not o.identity:
        raise UsageError("--identity is required (B: the provider code of X-CAI-Provider; A: the platform id of X-CAI-Source)")
    if "\r" in o.identity or "\n" in o.identity:
        raise UsageError("--identity must be one line")
    if not o.callback_url.startswith(("http://", "https://")):
        raise UsageError("--callback-url must be an http(s) URL")
    return o


# ------------------------------------------------------------------ documents (2.2, 2.4-2.7)

def now_iso(opts, i=0):
    offset = OFFSETS[i % len(OFFSETS)] if opts.varied_offsets else timedelta(hours=-3)
    spec = "microseconds" if opts.varied_offsets else "milliseconds"
    return datetime.now(timezone(offset)).isoformat(timespec=spec)


def new_id(opts, prefix):
    if opts.fault == "id-from-clock-seconds":
        return f"ev-{int(time.time())}"
    return f"{prefix}-{uuid.uuid4()}"


def event_type(opts, i):
    if opts.types == "all":
        return EVENT_TYPES[i % len(EVENT_TYPES)]
    # a conversation: messages, then the appointment it booked
    return "appointment.booked" if opts.count >= 2 and i == opts.count - 1 else "conversation.message"


def build_event(opts, run, i):
    kind = event_type(opts, i)
    doc = {"event": kind, "event_id": new_id(opts, "ev"), "lead_id": run["lead"]}
    if kind == "conversation.message":
        inbound = i % 2 == 0
        doc.update({
            "provider_job_id": run["job"], "channel": "webchat" if i % 3 else "sms",
            "from_number_e164": "+442071838750", "direction": "inbound" if inbound else "outbound",
            "author": "contact" if inbound else ("agent" if i % 3 else "human"),
            "text": f"Message {i + 1}: Grüße — können wir am Dienstag? 日本語もOK 👍" if inbound else f"Message {i + 1}: Natürlich, um 9:30 Uhr?",
            "occurred_at": now_iso(opts, i),
        })
    elif kind.startswith("appointment."):
        at = (datetime.now(timezone(timedelta(hours=1))) + timedelta(days=2 + i)).replace(hour=9, minute=30, second=0, microsecond=0)
        doc.update({"branch_code": "LDN-02", "scheduled_at": at.isoformat(), "service": "first consultation",
                    "notes": f"Document {i + 1}: prefers the morning", "occurred_at": now_iso(opts, i)})
    else:
        doc.update({"outcome": OUTCOMES[(i + 2) % len(OUTCOMES)], "attempts": 2 + i, "occurred_at": now_iso(opts, i)})
    if opts.extra_fields:
        doc["x_wild_trace"] = {"run": run["lead"], "seq": i, "tags": ["zoo", "wild"]}
    return doc


def build_job(opts, run, i):
    contact = {"name": "Siobhán O'Brien-Łukasik", "phone_e164": "+447700900123"}
    doc = {"lead_id": f"L{uuid.uuid4().hex[:12]}", "event_id": "", "branch_code": "LDN-02", "contact": contact,
           "callback_url": opts.callback_url}
    if opts.fault == "job-id-from-phone":
        doc["event_id"] = "job-" + hashlib.sha1(f"{contact['phone_e164']}|{doc['branch_code']}".encode()).hexdigest()[:24]
    else:
        doc["event_id"] = new_id(opts, "job")
    if opts.optional in ("some", "all"):
        contact["language"] = "en-GB" if i % 2 else "pl"
        doc["origin"] = {"channel": ORIGIN_CHANNELS[i % len(ORIGIN_CHANNELS)], "captured_at": now_iso(opts, i)}
        doc["brief"] = {"intent": INTENTS[(i + 1) % len(INTENTS)]}
    if opts.optional == "all":
        doc["city"] = "London"
        contact["email"] = "siobhan@example.org"
        doc["origin"].update({"source": "https://clinic.example/contact?utm=spring", "campaign": "spring-2025"})
        doc["brief"]["notes"] = f"Capture {i + 1}: asked about a Saturday slot — «urgent»"
    if opts.extra_fields:
        doc["x_wild_priority"] = i % 3
        contact["x_preferred_time"] = "morning"
        doc.setdefault("origin", {})["x_utm"] = {"medium": "cpc", "term": None}
    return doc


def reorder(obj, how, rng):
    if not isinstance(obj, dict):
        return obj
    keys = list(obj.keys())
    if how == "reversed":
        keys.reverse()
    elif how == "sorted":
        keys.sort()
    elif how == "shuffled":
        rng.shuffle(keys)
    return {k: reorder(obj[k], how, rng) for k in keys}


def serialise(opts, doc, i=0, retry=False):
    if opts.key_order == "vary":
        doc = reorder(doc, ["reversed", "sorted", "shuffled"][i % 3], random.Random(i))
    if retry and opts.fault == "reorders-keys-on-retry":
        return json.dumps(doc, sort_keys=True, ensure_ascii=opts.ascii).encode("utf-8")
    if opts.pretty_crlf:
        return json.dumps(doc, indent=2, ensure_ascii=opts.ascii).replace("\n", "\r\n").encode("utf-8")
    return json.dumps(doc, ensure_ascii=opts.ascii).encode("utf-8")


# ------------------------------------------------------------------ signing (5.2-5.4)

def sign(secret, timestamp, body):
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode("ascii") + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


# ------------------------------------------------------------------ Retry-After (7: seconds or an HTTP-date)

def retry_after_seconds(value, fault=None):
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return int(v) / 1000 if fault == "retry-after-ms" else float(int(v))
    try:
        at = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return max(0.0, (at - datetime.now(timezone.utc)).total_seconds())


# ------------------------------------------------------------------ the transport

class Transport:
    def __init__(self, opts, url):
        u = urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        self.path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.keep = opts.connection == "one"
        self.timeout = opts.timeout / 1000
        self.conn = None

    def post(self, body, headers):
        """An answer (status, headers, body) or None when the connection was cut without one."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.conn.request("POST", self.path, body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
            answer = (resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
            if not self.keep or resp.will_close:
                self.close()
            return answer
        except (http.client.HTTPException, OSError) as e:
            self.close()
            return None, str(e) or type(e).__name__

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# ------------------------------------------------------------------ one delivery (7, 8)

def deliver(opts, ctx, doc, index, log):
    body = serialise(opts, doc, index)
    first = time.monotonic() if opts.fault != "shared-retry-clock" else ctx["run_start"]
    failures = 0
    attempt = 0
    first_ts = None
    first_sig = None
    seen_429 = False
    while True:
        attempt += 1
        retry = attempt > 1
        if retry and opts.fault == "rebuilds-job-on-retry" and "origin" in doc:
            doc["origin"]["captured_at"] = now_iso(opts, index)
            body = serialise(opts, doc, index)
        elif retry and opts.fault == "reorders-keys-on-retry":
            body = serialise(opts, doc, index, retry=True)
        ts = int(time.time() * 1000) if retry and opts.fault == "ms-timestamp-on-retry" else int(time.time())
        if opts.fault == "signs-pretty-sends-compact":
            sig = sign(opts.secret, ts, json.dumps(doc, indent=2, ensure_ascii=opts.ascii).encode("utf-8"))
        else:
            sig = sign(opts.secret, ts, body)
        if opts.fault == "signature-not-refreshed":
            if first_sig is None:
                first_ts, first_sig = ts, sig
            sig = first_sig
        names = ["Content-Type", "X-CAI-Provider" if opts.interface == "B" else "X-CAI-Source", "X-CAI-Timestamp", "X-CAI-Signature"]
        if opts.header_case == "lower":
            names = [n.lower() for n in names]
        media = "application/x-www-form-urlencoded" if retry and opts.fault == "form-content-type-on-retry" else "application/json"
        if opts.fault == "charset-latin1":
            media = "application/json; charset=iso-8859-1"
        headers = {names[0]: media, names[1]: opts.identity, names[2]: str(ts), names[3]: sig}
        answer = ctx["transport"].post(body, headers)
        status = answer[0]
        log(f"{doc['event_id']}: attempt {attempt} -> {status if status is not None else 'cut (' + answer[1] + ')'}")
        if status is not None and 200 <= status < 300:
            return "accepted"  # any 2xx (6.5), the duplicate answer and 204 included
        if status == 413 and opts.fault == "retries-413":
            kind = "retry"
        elif status == 429:
            kind = "refused" if opts.fault == "no-retry-on-429" else "rate"
        elif status is None or status >= 500:
            kind = "retry"
        else:
            kind = "refused"  # 400, 401, 413 (7: do not retry) and any other status
        if kind == "refused":
            return "refused"
        remaining = opts.retry_for / 1000 - (time.monotonic() - first)
        if remaining <= 0:
            return "given-up"
        failures += 1
        own = min(opts.max_delay, opts.base_delay * 2 ** min(failures - 1, 30)) / 1000
        if opts.fault == "caps-retry-after":
            own = min(own, 1.0)
        if kind == "rate":
            ra = retry_after_seconds(answer[1].get("retry-after"), opts.fault)
            if ra is None or (opts.fault == "retry-after-first-only" and seen_429):
                wait = min(own, remaining)
            else:
                if opts.fault == "caps-retry-after":
                    ra = min(ra, 1.0)
                if ra > remaining:
                    return "given-up"  # never before Retry-After (7)
                wait = ra + 0.02  # an HTTP-date has whole seconds; a sleep may end a little early
            seen_429 = True
        elif status is None and opts.fault == "cut-retried-without-backoff":
            wait = 0
        else:
            wait = min(own, remaining)
        time.sleep(wait)
        if status is None and opts.fault == "renames-after-cut":
            doc["event_id"] = new_id(opts, "job" if opts.interface == "A" else "ev")
            body = serialise(opts, doc, index)


def main(argv):
    try:
        opts = parse_args(argv)
        if opts.list_faults:
            print(json.dumps(FAULTS, ensure_ascii=False))
            return 0
        opts.secret = os.environ.get(opts.secret_env, "")
        if not opts.secret:
            raise UsageError(f"${opts.secret_env} is empty: the signing secret comes from the environment (5.1)")
        base = os.environ.get("CAI_TARGET_URL", "")
        u = urlsplit(base)
        if u.scheme != "http" or u.hostname not in ("127.0.0.1", "localhost"):
            raise UsageError("$CAI_TARGET_URL must be an http:// URL on 127.0.0.1")
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        print("hint: python3 wild_sender.py --interface B|A --identity CODE [--count N] [--retry-for MS] [--base-delay MS] "
              "[--pretty-crlf] [--ascii] [--key-order insertion|vary] [--connection per-attempt|one] [--optional some|all|none] "
              "[--extra-fields] [--varied-offsets] [--header-case canonical|lower] [--types conversation|all] [--fault NAME]", file=sys.stderr)
        return 2
    # $CAI_SCENARIO is not read: a real sender knows nothing of the judge's scripts.
    target = base if opts.interface == "B" else base.rstrip("/") + "/contact-jobs"
    if opts.fault == "query-on-url":
        target += "?api-version=1.0"
    run = {"lead": f"L{uuid.uuid4().hex[:12]}", "job": f"J-{uuid.uuid4().hex[:10]}"}
    ctx = {"transport": Transport(opts, target), "run_start": time.monotonic()}
    outcomes = []
    for i in range(opts.count):
        doc = build_event(opts, run, i) if opts.interface == "B" else build_job(opts, run, i)
        outcome = deliver(opts, ctx, doc, i, lambda s: print(s, file=sys.stderr, flush=True))
        print(f"{outcome} {json.dumps(doc['event_id'])}", flush=True)
        outcomes.append(outcome)
    ctx["transport"].close()
    if "given-up" in outcomes:
        return 3
    if "refused" in outcomes:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
