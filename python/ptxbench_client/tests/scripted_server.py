"""A scripted reward API on loopback for the client's tests: each request gets the next scripted
step (a status with a JSON body and headers, or a connection closed without an answer); every
request is recorded."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

DROP = "drop"  # close the connection without answering


class ScriptedServer:
    def __init__(self, steps: List[Any]) -> None:
        self.steps = list(steps)
        self.requests: List[Tuple[str, str, Optional[Any]]] = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length", "0") or 0)
                raw = self.rfile.read(length) if length else b""
                with lock:
                    outer.requests.append((method, self.path, json.loads(raw) if raw else None))
                    step = outer.steps.pop(0) if outer.steps else (500, {"error": {"message": "script ran out"}}, {})
                if step == DROP:
                    self.close_connection = True
                    self.connection.close()
                    return
                status, body, headers = step
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "ScriptedServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def accepted(*keys: str, duplicate: bool = False) -> Tuple[int, Dict[str, Any], Dict[str, str]]:
    return 202, {"submissions": [{"key": k, "duplicate": duplicate} for k in keys]}, {}


def refused(status: int, retry_after: Optional[str] = None, errors=None) -> Tuple[int, Dict[str, Any], Dict[str, str]]:
    err: Dict[str, Any] = {"status": status, "message": f"refused with {status}"}
    if errors:
        err["errors"] = errors
    return status, {"error": err}, ({"Retry-After": retry_after} if retry_after else {})
