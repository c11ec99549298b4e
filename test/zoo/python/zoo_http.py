"""What the zoo's Python receivers share: the signature of §5.2-§5.3, the date-time format of §2.1 and reading a
request body (http.server decodes no chunked framing), and serving until SIGTERM."""
import hashlib
import hmac
import os
import re
import signal
import threading
from datetime import datetime
from http.server import ThreadingHTTPServer


def sign(secret, timestamp, body):
    """§5.2-§5.3: `sha256=` and the lowercase hex of HMAC-SHA256(secret, timestamp + "." + raw body)."""
    return "sha256=" + hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()


def is_date_time(value):
    """§2.1 ISO 8601 with an offset: a date, `T`, a time, and an offset (Z or +hh:mm)."""
    # The offset's hours 00-23 and minutes 00-59: datetime.fromisoformat reads +05:60 as six hours.
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)", value):
        return False
    try:
        return datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def read_body(handler, limit):
    """The body (Content-Length or chunked, RFC 9112 §7.1), or None when it is over `limit` bytes; what is over the
    limit is read and dropped so that the client reads its 413. A malformed chunk size raises ValueError."""
    rfile = handler.rfile
    if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
        parts, size = [], 0
        while True:
            chunk = int(rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
            if chunk == 0:
                while rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts) if size <= limit else None
            data = rfile.read(chunk)
            rfile.readline(8)
            size += chunk
            if size <= limit:
                parts.append(data)
    length = int(handler.headers.get("Content-Length") or 0)
    if length < 0:
        raise ValueError("negative Content-Length")
    if length <= limit:
        return rfile.read(length)
    remaining = length
    while remaining > 0:
        got = len(rfile.read(min(remaining, 65536)))
        remaining = remaining - got if got else 0
    return None


def serve(handler, port, path, **state):
    """Serves `handler` on 127.0.0.1 (one thread a connection), with `state` and a lock as attributes of the server;
    prints its URL (with `path`) as the first line of stdout, and stops on SIGTERM."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    server.lock = threading.Lock()
    for name, value in state.items():
        setattr(server, name, value)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(f"http://127.0.0.1:{server.server_address[1]}{path}", flush=True)
    server.serve_forever()
    return 0
