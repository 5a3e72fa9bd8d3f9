"""One HTTP request and its answer, sync (http.client) and asyncio (a minimal HTTP/1.1 client on
asyncio streams): the standard library only. A connection error raises OSError (or a timeout),
which the clients retry."""
from __future__ import annotations

import asyncio
import http.client
import json
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple
from urllib.parse import urlsplit


@dataclass
class Response:
    status: int
    headers: Dict[str, str]  # names lower-cased
    body: Any                # parsed JSON, or None when the body was not JSON

    def header(self, name: str) -> Optional[str]:
        return self.headers.get(name.lower())


def split_url(base_url: str) -> Tuple[str, int, str]:
    parts = urlsplit(base_url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"the reward API's URL must be http://HOST:PORT[/PREFIX], got '{base_url}'")
    return parts.hostname, parts.port or 80, parts.path.rstrip("/")


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def request(base_url: str, method: str, path: str, body: Any = None, timeout: float = 120.0) -> Response:
    host, port, prefix = split_url(base_url)
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, prefix + path, body=data, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, _parse(raw))
    except http.client.HTTPException as e:  # a reply cut short: as a connection error, retried
        raise ConnectionError(f"{method} {path}: {e!r}") from e
    finally:
        conn.close()


async def request_async(base_url: str, method: str, path: str, body: Any = None,
                        timeout: float = 120.0) -> Response:
    host, port, prefix = split_url(base_url)
    return await asyncio.wait_for(_exchange(host, port, method, prefix + path, body), timeout)


async def _exchange(host: str, port: int, method: str, target: str, body: Any) -> Response:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        data = b"" if body is None else json.dumps(body).encode("utf-8")
        head = (f"{method} {target} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
                f"Connection: close\r\nContent-Length: {len(data)}\r\n")
        if body is not None:
            head += "Content-Type: application/json\r\n"
        writer.write(head.encode("latin-1") + b"\r\n" + data)
        await writer.drain()
        status_line = await reader.readline()
        fields = status_line.decode("latin-1").split(" ", 2)
        if len(fields) < 2 or not fields[1].isdigit():
            raise ConnectionError(f"{method} {target}: no HTTP status line (got {status_line[:80]!r})")
        headers: Dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            raw = await _read_chunked(reader)
        elif "content-length" in headers:
            raw = await reader.readexactly(int(headers["content-length"]))
        else:
            raw = await reader.read()
        return Response(int(fields[1]), headers, _parse(raw))
    except asyncio.IncompleteReadError as e:
        raise ConnectionError(f"{method} {target}: the reply was cut short") from e
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readline()
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readline()
