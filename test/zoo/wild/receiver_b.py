#!/usr/bin/env python3
"""An Interface B receiver (the platform's events endpoint), written from interface-spec-v1.0 alone.

Standard library only. It binds 127.0.0.1, prints its events URL as the first stdout line, then
`recorded "<event_id>"` (a JSON string) for each new event, and serves until SIGTERM. The secret comes
from CAI_SECRET, the provider code it accepts from --provider; during a rotation (§5.9) the previous secret,
from CAI_PREVIOUS_SECRET when set, verifies too.

Its choices where the spec leaves one open (every one can be changed by an option, for the zoo):
  - the size limit is read first, then the origin, provider, timestamp and signature, then the document
    (--order auth-first reads the body up to 8 MiB and judges the signature before the size; past 8 MiB
    it answers 413 at once, reading on for a while so that the sender gets the answer);
  - 256 KB is 262 144 bytes; event_id is counted in code points; identifiers are compared exactly;
  - the window is judged in whole seconds, 300 s off inside;
  - the first-time answer is 202 {"ok":true} (--success, --ack); error bodies are JSON (--errors);
  - HTTP/1.1 keep-alive, sized answers (--http10, --close, --chunked);
  - no request cap (--rate-every N answers every Nth request 429 with Retry-After, --retry-after);
  - the dedupe memory lives in the process (--store PATH|auto keeps it in a file, fsynced).

--fault NAME makes it commit exactly one mistake (--list-faults prints the table as JSON).
"""
import argparse
import atexit
import hashlib
import hmac
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LIMIT = 262144            # §8: 256 KB, read as KiB so that no conforming sender is refused
HARD_CAP = 8 * 1024 * 1024  # what it reads at most before it stops reading and closes (own bound)
WINDOW = 300              # §5.5
MAX_ID = 120              # §2.4, §8

TYPES = ("conversation.message", "appointment.booked", "appointment.rescheduled",
         "appointment.cancelled", "job.closed")
CHANNELS = ("whatsapp", "webchat", "sms", "phone", "email")        # §2.10
DIRECTIONS = ("inbound", "outbound")                               # §2.10
AUTHORS = ("agent", "contact", "human")                            # §2.11
OUTCOMES = ("no_answer", "not_interested", "wrong_number", "callback_later", "opted_out")  # §2.12
ENVELOPE = ("event", "event_id", "lead_id", "provider_job_id", "channel", "from_number_e164",
            "direction", "author", "text", "occurred_at")          # §2.4
APPOINTMENT = ("event", "event_id", "lead_id", "branch_code", "scheduled_at", "service", "notes",
               "occurred_at")                                      # §2.6
CLOSED = ("event", "event_id", "lead_id", "outcome", "attempts", "occurred_at")  # §2.7

FAULTS = {
    # RB1: a valid, authentic, new event refused
    "content-type-exact": ("RB1", "§2, §4.2",
        "refuses (415) any Content-Type but the exact string application/json: "
        "'application/json; charset=utf-8' is refused"),
    "chunked-411": ("RB1", "§4.2",
        "reads the body by Content-Length only: a chunked request body is answered 411"),
    "envelope-fields-per-type": ("RB1", "§2.4, §9.2",
        "takes the lists of §2.6/§2.7 as closed: an envelope field (provider_job_id, channel...) "
        "on an appointment or job.closed event is refused 400"),
    "no-drain-on-401": ("RB1", "§4.2, §7",
        "answers a 401 decided from the headers before reading the body and keeps the connection: "
        "the next request on it is read from the unread body and refused"),
    "date-time-whole-hour-offsets": ("RB1", "§2.1",
        "accepts only offsets of whole hours (±HH:00, Z): +05:45 or -09:30 is refused 400"),
    "size-at-limit-refused": ("RB1", "§8",
        "refuses (413) a body of exactly 256 KB: the limit is compared with >="),
    # RB2: a repeat not answered as the duplicate
    "dedupe-by-type": ("RB2", "§6.1",
        "keys its dedupe memory on (event type, event_id): the repeat with another type is new"),
    "dedupe-per-connection": ("RB2", "§6.1",
        "keeps its dedupe memory per connection: a repeat on a new connection is new"),
    "dedupe-forgets-after-100": ("RB2", "§6.1",
        "remembers the last 100 event_ids only: a repeat after 100 others is new"),
    "dedupe-forgets-after-7s": ("RB2", "§6.1, §7",
        "keeps an event_id for 7 s after it was first recorded (a cache time-to-live): a later repeat is new"),
    "dedupe-race": ("RB2", "§6.1",
        "checks the memory, stores the record, then marks the id: of concurrent repeats of a new "
        "event_id several are recorded as new"),
    "dedupe-raw-id": ("RB2", "§6.1",
        "keys its memory on the event_id as spelt in the raw body: the same id sent with a \\u "
        "escape is new"),
    # RB3: distinct ids taken for one
    "dedupe-first-64": ("RB3", "§6.1",
        "keys its memory on the first 64 characters of the event_id (a column of 64): two ids "
        "that differ after them are one"),
    "dedupe-url-decoded": ("RB3", "§6.1",
        "keys its memory on the percent-decoded event_id: 'a%2Fb' after 'a/b' is a repeat"),
    "dedupe-uuid-column": ("RB3", "§6.1",
        "keys its memory on a UUID column: an event_id that is a UUID is one value in either case and "
        "without hyphens, so 'A0EE...' after 'a0ee...' is a repeat"),
    # RB4: authentication
    "duplicate-before-auth": ("RB4", "§5, §7",
        "looks the event_id up before verifying: a repeat with a wrong signature is answered 202 "
        "duplicate"),
    "provider-optional": ("RB4", "§5.6",
        "takes a missing X-CAI-Provider for its one provider: the request is accepted"),
    "timestamp-int-parse": ("RB4", "§4.2, §5.4",
        "parses X-CAI-Timestamp with int(): '1_700_000_000', ' 1700000000' or '+1700000000' "
        "are accepted when signed"),
    "origin-x-forwarded-for": ("RB4", "§5.7",
        "takes the origin from X-Forwarded-For when present: an unregistered address that claims "
        "a registered one is accepted"),
    "empty-previous-secret": ("RB4", "§5.1, §5.3, §5.9",
        "verifies with the previous secret of a rotation too, a setting that defaults to '': a request "
        "signed with the empty secret is accepted"),
    "window-reads-last-timestamp": ("RB4", "§5.4, §5.5",
        "signs over the first X-CAI-Timestamp line and judges the window on the last: a stale signed "
        "request replayed with a second, fresh timestamp line is accepted"),
    # RB5: schema
    "non-object-500": ("RB5", "§2.4, §7",
        "reads fields of the parsed body without checking it is an object: [] or 1 is answered 500"),
    "bad-utf8-500": ("RB5", "§2, §7",
        "catches JSONDecodeError only: a body that is not UTF-8 is answered 500"),
    "utf8-replaced": ("RB5", "§2",
        "decodes the body with errors='replace': bytes that are not UTF-8 inside a string are read as "
        "U+FFFD and the event taken (its event_id changed)"),
    "deep-nesting-500": ("RB5", "§7, §9.2",
        "catches ValueError only: an unknown field nested deeper than Python's recursion limit is "
        "answered 500"),
    "unpaired-surrogate-500": ("RB5", "§7, §9.2",
        "stores the document as UTF-8 text without a handler: a string with an unpaired surrogate "
        "escape (\\ud800) is answered 500"),
    "date-time-offset-optional": ("RB5", "§2.1",
        "takes the offset of a date-time as optional: 2024-05-01T10:00:00 is accepted"),
    "date-calendar-unchecked": ("RB5", "§2.1",
        "checks a date-time's digits, not the calendar: 2026-02-30T10:00:00+01:00 is accepted"),
    "duplicate-before-schema": ("RB5", "§6.1, §7",
        "looks the event_id up before validating: an invalid document with an accepted id is "
        "answered 202 duplicate"),
    "e164-strips-formatting": ("RB5", "§2.1",
        "strips spaces, dashes, dots and parentheses before checking E.164: '+1 415-555-2671' is "
        "accepted"),
    "raw-decode": ("RB5", "§2",
        "parses the body with json.JSONDecoder().raw_decode: text after the JSON document is ignored "
        "and the event taken"),
    "date-time-unanchored": ("RB5", "§2.1",
        "matches a date-time with re.match, no end anchor: '2026-11-22T13:00:00+01:00 CET' is accepted"),
    "lead-id-strip-crash": ("RB5", "§2.4, §7",
        "calls .strip() on lead_id without checking it is a string, outside its error handling: a "
        "numeric lead_id raises in the handler and the connection is closed with no answer"),
    # RB6: size
    "size-truncates": ("RB6", "§8",
        "reads at most 256 KB and judges what it read: an oversize body fails the signature (401), "
        "never 413"),
    "size-of-compact-json": ("RB6", "§8",
        "measures the re-serialised compact document, not the body: a pretty-printed body over "
        "256 KB is accepted"),
    # RB7: no trace
    "negative-cache": ("RB7", "§7",
        "remembers the event_ids it refused as invalid: the same id sent next, valid, is refused 400"),
    "records-before-window": ("RB7", "§5.5",
        "records the event once the signature verifies, then judges the window: a stale request is "
        "refused 401 but its id is answered duplicate next"),
    # RB8: the answer contract
    "duplicate-200": ("RB8", "§2.13",
        "answers the duplicate with status 200 (the body is right)"),
    "duplicate-text-plain": ("RB8", "§2, §2.13",
        "labels the duplicate body text/plain"),
    "same-body-for-both": ("RB8", "§2.13, §4.2",
        "answers every acceptance with {\"ok\":true,\"duplicate\":true}, the first one included"),
    "duplicate-ok-false": ("RB8", "§2.13",
        "answers the duplicate {\"ok\":false,\"duplicate\":true}"),
    "429-no-retry-after": ("RB8", "§7",
        "a request cap (every 5th request) answered 429 without Retry-After"),
    "attempts-overflow-500": ("RB5", "§2.7, §7",
        "stores attempts in a signed 64-bit column: a value past 2**63 - 1 overflows and is answered 500"),
    "content-length-chars": ("RB8", "§2, §4.2",
        "echoes the event_id in its acceptance with ensure_ascii=False and counts Content-Length in characters: "
        "the answer to a non-ASCII event_id is cut short and leaves bytes on the connection"),
    "dedupe-ts-window": ("RB2", "§6.1, §5.4",
        "keys its dedupe memory on (event_id, the 10-minute bucket of X-CAI-Timestamp): a retry re-signed "
        "with a timestamp in the next bucket, still inside the window, is recorded twice"),
    "empty-lead-400": ("RB1", "§2.4, §6.3",
        "refuses an empty lead_id (\"\") with 400: a string it does not recognise as a lead"),
    "e164-unicode-digits": ("RB5", "§2.1",
        "checks E.164 with Python's \\d, which matches any Unicode digit: "
        "'+\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660' (Arabic-Indic digits) is accepted"),
    "empty-text-400": ("RB1", "§2.4, §2.5",
        "refuses an empty text (\"\") with 400"),
    "scheduled-past-400": ("RB1", "§2.6",
        "refuses a scheduled_at in the past with 400 (a cancelled or rescheduled appointment may lie there)"),
    "attempts-zero-400": ("RB1", "§2.7",
        "refuses attempts 0 with 400 (counts from 1)"),
    "offset-range-unchecked": ("RB5", "§2.1",
        "checks a date-time's offset for two digits only: +25:00 or -24:30 is accepted"),
    "job-id-number": ("RB5", "§2.4",
        "does not type provider_job_id: a number is accepted"),
    "appointment-fields-number": ("RB5", "§2.6",
        "does not type branch_code, service and notes: numbers are accepted"),
}

E164 = re.compile(r"\+[1-9][0-9]{1,14}")
DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})([.,][0-9]+)?"
    r"(Z|[+-]([0-9]{2}):([0-9]{2}))")
DATE_TIME_NO_OFFSET = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})([.,][0-9]+)?"
    r"(Z|[+-]([0-9]{2}):([0-9]{2}))?")
TIMESTAMP = re.compile(r"[0-9]{1,15}")
SIGNATURE = re.compile(r"sha256=[0-9a-f]{64}")
UUID_TEXT = re.compile(r"[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}")
RAW_ID = re.compile(rb'"event_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class Refused(Exception):
    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class Config:
    pass


class LeadIdCrash(Exception):
    """What the lead-id-strip-crash fault raises: it escapes the handler as an uncaught error would."""


def days_in_month(year, month):
    if month == 2:
        return 29 if (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def valid_date_time(value, fault):
    """§2.1: ISO 8601 with a time-zone offset (extended format, any fraction, any offset)."""
    if not isinstance(value, str):
        return False
    pattern = DATE_TIME_NO_OFFSET if fault == "date-time-offset-optional" else DATE_TIME
    m = pattern.match(value) if fault == "date-time-unanchored" else pattern.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    last_day = 31 if fault == "date-calendar-unchecked" else days_in_month(year, month)
    if not (1 <= month <= 12 and 1 <= day <= last_day):
        return False
    if hour > 23 or minute > 59 or second > 60:   # 60: a leap second
        return False
    if m.group(8) not in (None, "Z"):
        oh, om = int(m.group(9)), int(m.group(10))
        if (oh > 23 or om > 59) and fault != "offset-range-unchecked":
            return False
        if fault == "date-time-whole-hour-offsets" and om != 0:
            return False
    return True


def valid_e164(value, fault):
    if not isinstance(value, str):
        return False
    if fault == "e164-strips-formatting":
        value = re.sub(r"[ \-().]", "", value)
    if fault == "e164-unicode-digits":    # the mistake: \d is any Unicode digit in a str pattern
        return re.fullmatch(r"\+\d{2,15}", value) is not None and int(value[1]) != 0
    return E164.fullmatch(value) is not None


def scheduled_in_past(value):
    """The scheduled-past-400 fault's reading: the date-time (already valid) before now."""
    from datetime import datetime
    try:
        return datetime.fromisoformat(value.replace(",", ".").replace("Z", "+00:00")).timestamp() < time.time()
    except ValueError:
        return False


def validate(doc, fault):
    """§2.4-§2.7, §6: only `event` and `event_id` are required; every known field is typed when present;
    unknown fields are ignored (§9.2)."""
    if fault != "non-object-500" and not isinstance(doc, dict):
        raise Refused(400, "the body is not a JSON object")
    event = doc.get("event")
    if event not in TYPES:
        raise Refused(400, "event is missing or not a type of §6")
    event_id = doc.get("event_id")
    if not isinstance(event_id, str) or not 1 <= len(event_id) <= MAX_ID:
        raise Refused(400, "event_id must be a string of 1 to 120 characters")
    typed = ("lead_id", "provider_job_id", "text", "branch_code", "service", "notes")
    if fault == "job-id-number":
        typed = tuple(name for name in typed if name != "provider_job_id")
    elif fault == "appointment-fields-number":
        typed = tuple(name for name in typed if name not in ("branch_code", "service", "notes"))
    for name in typed:
        if name in doc and not isinstance(doc[name], str):
            raise Refused(400, f"{name} must be a string")
    if fault == "empty-lead-400" and doc.get("lead_id") == "":
        raise Refused(400, "lead_id must not be empty")
    if fault == "empty-text-400" and doc.get("text") == "":
        raise Refused(400, "text must not be empty")
    for name, allowed in (("channel", CHANNELS), ("direction", DIRECTIONS), ("author", AUTHORS),
                          ("outcome", OUTCOMES)):
        if name in doc and doc[name] not in allowed:
            raise Refused(400, f"{name} is not a value of its enumeration")
    if "from_number_e164" in doc and not valid_e164(doc["from_number_e164"], fault):
        raise Refused(400, "from_number_e164 is not E.164")
    for name in ("occurred_at", "scheduled_at"):
        if name in doc and not valid_date_time(doc[name], fault):
            raise Refused(400, f"{name} is not an ISO 8601 date-time with an offset")
    if fault == "scheduled-past-400" and "scheduled_at" in doc and scheduled_in_past(doc["scheduled_at"]):
        raise Refused(400, "scheduled_at is in the past")
    if "attempts" in doc and (not isinstance(doc["attempts"], int) or isinstance(doc["attempts"], bool)):
        raise Refused(400, "attempts must be an integer")
    if fault == "attempts-zero-400" and doc.get("attempts") == 0:
        raise Refused(400, "attempts must be at least 1")
    if fault == "attempts-overflow-500" and "attempts" in doc and not -2**63 <= doc["attempts"] < 2**63:
        raise Refused(500, "Python int too large to convert to SQLite INTEGER")
    if fault == "envelope-fields-per-type" and event != "conversation.message":
        listed = CLOSED if event == "job.closed" else APPOINTMENT
        for name in ENVELOPE:
            if name in doc and name not in listed:
                raise Refused(400, f"{name} is not a field of {event}")
    return event_id


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse_json(raw, fault):
    if fault == "bad-utf8-500":
        text = raw.decode("utf-8")            # the mistake: outside the handler of bad input
        try:
            return json.loads(text, parse_constant=reject_constant)
        except json.JSONDecodeError:
            raise Refused(400, "the body is not JSON")
    if fault == "deep-nesting-500":
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=reject_constant)
        except ValueError:                    # the mistake: RecursionError is no ValueError
            raise Refused(400, "the body is not JSON in UTF-8")
    errors = "replace" if fault == "utf8-replaced" else "strict"
    try:
        if fault == "raw-decode":             # the mistake: what follows the document is never looked at
            text = raw.decode("utf-8").lstrip(" \t\r\n")
            return json.JSONDecoder(parse_constant=reject_constant).raw_decode(text)[0]
        doc = json.loads(raw.decode("utf-8", errors), parse_constant=reject_constant)
    except ValueError:                        # UnicodeDecodeError and JSONDecodeError are both ValueError
        raise Refused(400, "the body is not JSON in UTF-8")
    except RecursionError:                    # own bound: nesting deeper than the parser's recursion
        raise Refused(400, "the body nests deeper than this receiver reads")
    if fault == "unpaired-surrogate-500":
        json.dumps(doc, ensure_ascii=False).encode("utf-8")   # the mistake: UnicodeEncodeError, unhandled
    return doc


class Memory:
    """The dedupe memory: one check-and-record step under a lock (§6.1), optionally kept in a file."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.lock = threading.Lock()
        self.fault = cfg.fault
        self.seen = OrderedDict()
        self.refused = set()
        self.store = None
        if cfg.store:
            path = cfg.store
            if path == "auto":           # a fresh file, removed at exit
                fd, path = tempfile.mkstemp(prefix="zoo-wild-b-", suffix=".jsonl")
                os.close(fd)
                atexit.register(os.unlink, path)
            self.store_path = path
            if os.path.exists(path):
                with open(path, "r", encoding="utf-8") as f:
                    for line in f:
                        line = line.strip()
                        if line:
                            self.seen[tuple(json.loads(line))] = True
            self.store = open(path, "a", encoding="utf-8")

    def key(self, provider, event_id, doc, raw, ts=None):
        f = self.fault
        if f == "dedupe-ts-window" and ts is not None:
            return (provider, event_id, ts // 600)   # the mistake: a retry signed later is another key
        if f == "dedupe-by-type":
            return (provider, doc.get("event"), event_id)
        if f == "dedupe-first-64":
            return (provider, event_id[:64])
        if f == "dedupe-url-decoded":
            return (provider, unquote(event_id))
        if f == "dedupe-uuid-column":
            hexdigits = event_id.replace("-", "").lower()
            if UUID_TEXT.fullmatch(event_id) and len(hexdigits) == 32:
                return (provider, hexdigits)
        if f == "dedupe-raw-id":
            m = RAW_ID.search(raw)
            if m:
                return (provider, m.group(1).decode("utf-8", "surrogateescape"))
        return (provider, event_id)

    def _forget_expired(self, key):
        """Under the lock: drops the key once its time-to-live has passed (the 7 s cache fault only)."""
        if self.fault == "dedupe-forgets-after-7s" and key in self.seen and time.monotonic() - self.seen[key] > 7:
            del self.seen[key]

    def known(self, key):
        with self.lock:
            self._forget_expired(key)
            return key in self.seen

    def _write(self, key, event_id):
        if self.store:
            self.store.write(json.dumps(list(key)) + "\n")
            self.store.flush()
            os.fsync(self.store.fileno())
        emit("recorded " + json.dumps(event_id))

    def record(self, key, event_id):
        """True when the event is new (and now recorded), False for a repeat."""
        if self.fault == "dedupe-race":
            with self.lock:
                if key in self.seen:
                    return False
            self._write(key, event_id)
            time.sleep(0.05)              # the store's round trip, between the check and the mark
            with self.lock:
                self.seen[key] = True
            return True
        with self.lock:
            self._forget_expired(key)
            if key in self.seen:
                self.seen.move_to_end(key)
                return False
            self._write(key, event_id)
            self.seen[key] = time.monotonic() if self.fault == "dedupe-forgets-after-7s" else True
            if self.fault == "dedupe-forgets-after-100" and len(self.seen) > 100:
                self.seen.popitem(last=False)
            return True


OUT_LOCK = threading.Lock()


def emit(line):
    with OUT_LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    server_version = "zoo-wild-b/1.0"
    cfg = None        # set at start
    memory = None

    def setup(self):
        super().setup()
        if self.cfg.fault == "dedupe-per-connection":
            self.connection_memory = Memory(self.cfg)   # the mistake: a memory per handler, per connection

    def log_message(self, fmt, *args):   # no access log: stdout is for the records
        pass

    # ---- answers -------------------------------------------------------------------------------------

    def answer(self, status, body=b"", ctype=None, headers=None):
        cfg = self.cfg
        self.send_response(status)
        if body and ctype:
            self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if cfg.close or self.request_version == "HTTP/1.0" or self.protocol_version == "HTTP/1.0":
            self.send_header("Connection", "close")
            self.close_connection = True
        elif self.close_connection:
            self.send_header("Connection", "close")
        chunked = (cfg.chunked and body and self.request_version == "HTTP/1.1"
                   and self.protocol_version == "HTTP/1.1")
        if status == 204:
            pass
        elif chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status == 204 or not body:
            return
        if chunked:
            half = max(1, len(body) // 2)
            for part in (body[:half], body[half:]):
                if part:
                    self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(body)

    def json_type(self):
        return "application/json; charset=utf-8" if self.cfg.charset else "application/json"

    def answer_error(self, status, message, headers=None):
        style = self.cfg.errors
        if style == "problem":
            body = json.dumps({"type": "about:blank", "title": self.responses.get(status, ("Error",))[0],
                               "status": status, "detail": message}).encode()
            ctype = "application/problem+json"
        elif style == "html":
            title = f"{status} {self.responses.get(status, ('Error',))[0]}"
            body = (f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>"
                    f"<body><h1>{title}</h1></body></html>\n").encode()
            ctype = "text/html; charset=utf-8"
        elif style == "empty":
            body, ctype = b"", None
        else:
            body = json.dumps({"ok": False, "error": message}).encode()
            ctype = self.json_type()
        self.answer(status, body, ctype, headers)

    def answer_duplicate(self):
        f = self.cfg.fault
        status = 200 if f == "duplicate-200" else 202
        body = {"ok": f != "duplicate-ok-false", "duplicate": True}
        ctype = "text/plain" if f == "duplicate-text-plain" else self.json_type()
        self.answer(status, json.dumps(body).encode(), ctype)

    def answer_new(self, event_id):
        cfg = self.cfg
        if cfg.fault == "content-length-chars":
            text = json.dumps({"ok": True, "event_id": event_id}, ensure_ascii=False)
            self.send_response(202)
            self.send_header("Content-Type", self.json_type())
            self.send_header("Content-Length", str(len(text)))  # the mistake: characters, not bytes
            self.end_headers()
            self.wfile.write(text.encode("utf-8"))
            return
        if cfg.fault == "same-body-for-both":
            self.answer(202, b'{"ok":true,"duplicate":true}', self.json_type())
            return
        if cfg.success == 204:
            self.answer(204)
            return
        if cfg.ack == "none":
            self.answer(cfg.success)
            return
        body = {"ok": True}
        if cfg.ack == "duplicate-false":
            body["duplicate"] = False
        elif cfg.ack == "extra":
            body.update({"received_at": formatdate(usegmt=True), "event_id": event_id, "status": "recorded"})
        self.answer(cfg.success, json.dumps(body).encode(), self.json_type())

    # ---- the body --------------------------------------------------------------------------------------

    def read_body(self, keep):
        """The body, up to `keep` bytes kept; returns (raw, size). Reads the rest (up to HARD_CAP) so
        that the connection stays usable; past HARD_CAP it stops and closes."""
        te = self.headers.get("Transfer-Encoding")
        if te is not None:
            if self.cfg.fault == "chunked-411":
                self.close_connection = True
                raise Refused(411, "a Content-Length is required")
            if te.strip().lower() != "chunked":
                self.close_connection = True
                raise Refused(400, "unsupported transfer coding")
            return self.read_chunked(keep)
        length = self.headers.get("Content-Length")
        if length is None:
            return b"", 0
        if not re.fullmatch(r"[0-9]{1,15}", length.strip()):
            self.close_connection = True
            raise Refused(400, "malformed Content-Length")
        size = int(length.strip())
        kept = self.rfile.read(min(size, keep))
        rest = size - len(kept)
        if rest > 0:
            if size > HARD_CAP:
                self.close_connection = True
                self.unread = True
            else:
                while rest > 0:
                    got = self.rfile.read(min(rest, 65536))
                    if not got:
                        break
                    rest -= len(got)
        return kept, size

    def read_chunked(self, keep):
        parts, kept, size = [], 0, 0
        while True:
            line = self.rfile.readline(4096)
            if not line.endswith(b"\n"):
                self.close_connection = True
                raise Refused(400, "malformed chunked body")
            digits = line.split(b";", 1)[0].strip()
            if not re.fullmatch(rb"[0-9A-Fa-f]{1,8}", digits):
                self.close_connection = True
                raise Refused(400, "malformed chunk size")
            n = int(digits, 16)
            if n == 0:
                break
            while n > 0:
                got = self.rfile.read(min(n, 65536))
                if not got:
                    self.close_connection = True
                    raise Refused(400, "truncated chunked body")
                n -= len(got)
                size += len(got)
                if kept < keep:
                    piece = got[:keep - kept]
                    parts.append(piece)
                    kept += len(piece)
                if size > HARD_CAP:
                    self.close_connection = True
                    self.unread = True
                    return b"".join(parts), size
            self.rfile.readline(4096)     # the CRLF after the chunk
        while True:                       # trailers
            line = self.rfile.readline(8192)
            if line in (b"\r\n", b"\n", b""):
                break
        return b"".join(parts), size

    # ---- checks ----------------------------------------------------------------------------------------

    def origin(self):
        if self.cfg.fault == "origin-x-forwarded-for":
            forwarded = self.headers.get("X-Forwarded-For")
            if forwarded:
                return forwarded.split(",")[0].strip()
        return self.client_address[0]

    def check_headers(self):
        """§5.6, §5.7, §5.4, §5.5: what can be judged before the body."""
        cfg = self.cfg
        if self.origin() not in cfg.origins:
            raise Refused(401, "unregistered origin")
        providers = self.headers.get_all("X-CAI-Provider") or []
        if not providers and cfg.fault == "provider-optional":
            providers = [cfg.provider]
        if len(providers) != 1 or providers[0] != cfg.provider:
            raise Refused(401, "unknown provider")
        stamps = self.headers.get_all("X-CAI-Timestamp") or []
        if cfg.fault == "window-reads-last-timestamp":
            if not stamps:
                raise Refused(401, "missing timestamp")
            if not all(TIMESTAMP.fullmatch(s) for s in stamps):
                raise Refused(401, "malformed timestamp")
            # the mistake: the signature is computed over the first line, the window judged on the last
            return stamps[0], int(stamps[-1])
        if len(stamps) != 1:
            raise Refused(401, "missing timestamp")
        stamp = stamps[0]
        if cfg.fault == "timestamp-int-parse":
            try:
                ts = int(stamp)
            except ValueError:
                raise Refused(401, "malformed timestamp")
        else:
            if not TIMESTAMP.fullmatch(stamp):
                raise Refused(401, "malformed timestamp")
            ts = int(stamp)
        return stamp, ts

    def check_window(self, ts):
        if abs(int(time.time()) - ts) > WINDOW:
            raise Refused(401, "timestamp outside the window")

    def check_signature(self, stamp, raw):
        """§5.2-§5.3, compared in constant time (§5.5)."""
        signatures = self.headers.get_all("X-CAI-Signature") or []
        if len(signatures) != 1 or not SIGNATURE.fullmatch(signatures[0]):
            raise Refused(401, "missing or malformed signature")
        secrets = [self.cfg.secret]
        if self.cfg.previous_secret is not None:     # a rotation's overlap (§5.9)
            secrets.append(self.cfg.previous_secret)
        verified = False
        for secret in secrets:
            expected = "sha256=" + hmac.new(secret, stamp.encode("latin-1") + b"." + raw,
                                            hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected.encode(), signatures[0].encode()):
                verified = True
        if not verified:
            raise Refused(401, "wrong signature")

    def check_size(self, raw, size):
        f = self.cfg.fault
        if f == "size-at-limit-refused":
            if size >= LIMIT:
                raise Refused(413, "body over 256 KB")
        elif f == "size-of-compact-json":
            pass                                  # judged on the parsed document instead
        elif size > LIMIT:
            raise Refused(413, "body over 256 KB")

    # ---- the request -----------------------------------------------------------------------------------

    def do_POST(self):
        self.unread = False
        try:
            self.handle_post()
        except Refused as r:
            self.answer_error(r.status, r.message, r.headers)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except LeadIdCrash:
            raise                                 # outside its error handling: http.server closes, no answer
        except Exception as e:                    # a bug of its own: an honest 500
            self.close_connection = True
            try:
                self.answer_error(500, f"internal error: {type(e).__name__}")
            except OSError:
                pass
        if self.unread:
            self.linger()

    def linger(self):
        """After answering a body it stopped reading, it reads on (and discards) for a while before closing,
        so that the sender gets the answer rather than a reset."""
        try:
            self.wfile.flush()
            self.connection.settimeout(2.0)
            total = 0
            while total < 64 * 1024 * 1024:
                got = self.rfile.read1(65536) if hasattr(self.rfile, "read1") else self.rfile.read(65536)
                if not got:
                    break
                total += len(got)
        except OSError:
            pass

    def handle_post(self):
        cfg = self.cfg
        f = cfg.fault
        server = self.server
        with server.count_lock:
            server.count += 1
            n = server.count
        path = urlsplit(self.path).path if "://" in self.path.split("?", 1)[0] else self.path.split("?", 1)[0]
        if path != cfg.path:
            self.read_body(0)
            raise Refused(404, "no such endpoint")
        if f == "no-drain-on-401":
            _, early = self.check_headers()       # the mistake: answered with the body still unread
            self.check_window(early)
        keep = HARD_CAP if (cfg.order == "auth-first" or f == "size-of-compact-json") else LIMIT + 1
        if f == "size-truncates":
            keep = LIMIT
        raw, size = self.read_body(keep)
        if f == "size-truncates":
            size = len(raw)                       # the mistake: what was kept is taken for the body
        if cfg.rate_every and n % cfg.rate_every == 0:
            headers = {}
            if f != "429-no-retry-after":
                if cfg.retry_after == "date":
                    headers["Retry-After"] = formatdate(time.time() + 2, usegmt=True)
                else:
                    headers["Retry-After"] = "1"
            raise Refused(429, "request cap reached", headers)
        if f == "content-type-exact" and self.headers.get("Content-Type") != "application/json":
            raise Refused(415, "Content-Type must be application/json")
        if cfg.order != "auth-first" or size > HARD_CAP:   # past 8 MiB nothing can be verified: 413
            self.check_size(raw, size)
        memory = self.connection_memory if f == "dedupe-per-connection" else self.memory
        if f == "duplicate-before-auth":
            try:
                peek = json.loads(raw)
                if isinstance(peek, dict) and isinstance(peek.get("event_id"), str):
                    if memory.known(memory.key(cfg.provider, peek["event_id"], peek, raw)):
                        self.answer_duplicate()
                        return
            except (ValueError, RecursionError):
                pass
        stamp, ts = self.check_headers()
        if f == "records-before-window":
            self.check_signature(stamp, raw)
            doc = parse_json(raw, f)
            event_id = validate(doc, f)
            key = memory.key(cfg.provider, event_id, doc, raw)
            fresh = memory.record(key, event_id)
            self.check_window(ts)
            if fresh:
                self.answer_new(event_id)
            else:
                self.answer_duplicate()
            return
        self.check_window(ts)
        self.check_signature(stamp, raw)
        if cfg.order == "auth-first":
            self.check_size(raw, size)
        doc = parse_json(raw, f)
        if f == "lead-id-strip-crash" and isinstance(doc, dict) and "lead_id" in doc:
            self.reconcile_key(doc)
        if f == "size-of-compact-json":
            compact = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
            if len(compact) > LIMIT:
                raise Refused(413, "body over 256 KB")
        if f == "duplicate-before-schema" and isinstance(doc, dict) and isinstance(doc.get("event_id"), str):
            if memory.known(memory.key(cfg.provider, doc["event_id"], doc, raw)):
                self.answer_duplicate()
                return
        if f == "negative-cache" and isinstance(doc, dict) and isinstance(doc.get("event_id"), str):
            if doc["event_id"] in memory.refused:
                raise Refused(400, "this event was refused before")
        try:
            event_id = validate(doc, f)
        except Refused:
            if f == "negative-cache" and isinstance(doc, dict) and isinstance(doc.get("event_id"), str):
                memory.refused.add(doc["event_id"])
            raise
        key = memory.key(cfg.provider, event_id, doc, raw, ts)
        if memory.record(key, event_id):
            self.answer_new(event_id)
        else:
            self.answer_duplicate()

    def reconcile_key(self, doc):
        """The lead_id as the reconciliation log keys it (§6.3), trimmed (the lead-id-strip-crash fault only).
        Its error is one the handler does not catch: it escapes do_POST as in a handler with no catch-all."""
        try:
            return doc["lead_id"].strip()         # the mistake: a number or null has no strip()
        except AttributeError as e:
            raise LeadIdCrash(str(e)) from e

    def not_allowed(self):
        try:
            self.read_body(0)
        except Refused:
            pass
        self.answer_error(405, "only POST", {"Allow": "POST"})

    do_GET = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = not_allowed

    def do_HEAD(self):
        self.send_response(405)
        self.send_header("Allow", "POST")
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    p = argparse.ArgumentParser(description="Interface B receiver for the zoo (wild)")
    p.add_argument("--provider", default="zoo-wild")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--path", default="/events")
    p.add_argument("--origins", default="127.0.0.1", help="registered origins, comma-separated (§5.7)")
    p.add_argument("--success", type=int, choices=(200, 201, 202, 204), default=202)
    p.add_argument("--ack", choices=("ok", "duplicate-false", "none", "extra"), default="ok")
    p.add_argument("--errors", choices=("json", "problem", "html", "empty"), default="json")
    p.add_argument("--charset", action="store_true", help="label JSON application/json; charset=utf-8")
    p.add_argument("--http10", action="store_true", help="answer in HTTP/1.0, one request per connection")
    p.add_argument("--close", action="store_true", help="Connection: close after every answer")
    p.add_argument("--chunked", action="store_true", help="answer bodies with chunked framing")
    p.add_argument("--order", choices=("size-first", "auth-first"), default="size-first")
    p.add_argument("--rate-every", type=int, default=0)
    p.add_argument("--retry-after", choices=("seconds", "date"), default="seconds")
    p.add_argument("--store", default=None, help="keep the dedupe memory in this file (auto: a temp file)")
    p.add_argument("--fault", choices=sorted(FAULTS), default=None)
    p.add_argument("--list-faults", action="store_true")
    a = p.parse_args()
    if a.list_faults:
        print(json.dumps([{"name": k, "relation": v[0], "clause": v[1], "description": v[2]}
                          for k, v in FAULTS.items()], indent=1))
        return 0
    secret = os.environ.get("CAI_SECRET")
    if not secret:
        sys.stderr.write("error: CAI_SECRET is not set\nhint: export the events secret as CAI_SECRET\n")
        return 2
    cfg = Config()
    cfg.secret = secret.encode("utf-8")
    previous = os.environ.get("CAI_PREVIOUS_SECRET", "")
    if a.fault == "empty-previous-secret":
        cfg.previous_secret = previous.encode("utf-8")   # the mistake: '' (not set) is tried as a key
    else:
        cfg.previous_secret = previous.encode("utf-8") if previous else None
    cfg.provider = a.provider
    cfg.path = a.path
    cfg.origins = {o.strip() for o in a.origins.split(",") if o.strip()}
    cfg.success = a.success
    cfg.ack = a.ack
    cfg.errors = a.errors
    cfg.charset = a.charset
    cfg.close = a.close
    cfg.chunked = a.chunked
    cfg.order = a.order
    cfg.rate_every = a.rate_every or (5 if a.fault == "429-no-retry-after" else 0)
    cfg.retry_after = a.retry_after
    cfg.store = a.store
    cfg.fault = a.fault
    Handler.cfg = cfg
    Handler.memory = Memory(cfg)
    Handler.protocol_version = "HTTP/1.0" if a.http10 else "HTTP/1.1"
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.count = 0
    server.count_lock = threading.Lock()

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    emit(f"http://127.0.0.1:{server.server_address[1]}{cfg.path}")
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
