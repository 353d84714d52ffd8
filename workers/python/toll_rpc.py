#!/usr/bin/env python3
"""toll's Python RPC server: spec/rpc.md's control plane over stdin/stdout.

It serves null calls over the stacks a Python service would deploy: `raw`
frames on asyncio streams, `http1` on the standard library's http.server
(keep-alive, a thread per connection), and `grpc` on grpcio's asyncio server
when grpcio imports (pinned in requirements-rpc.txt). There is no `h2`: the
standard library has no HTTP/2 server, and hello lists only what it serves.
Every call is counted and answered with the payload's length, nothing else.
"""
import asyncio
import http.server
import json
import os
import platform
import resource
import socket
import struct
import sys
import threading

try:
    import grpc
    import grpc.aio
except ImportError:  # the grpc stack is optional
    grpc = None

RPC_VERSION = 1
GRPCIO_PIN = "grpcio==1.80.1"  # as requirements-rpc.txt
MAX_FRAME = 64 << 20  # a longer raw frame is a broken stream
U32 = struct.Struct("<I")
STACKS = ["raw", "http1"] + (["grpc"] if grpc else [])


class Counter:
    """Calls answered, every stack together; http1's threads share it."""

    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def add(self):
        with self.lock:
            self.n += 1


calls = Counter()


def cpu_ns():
    """This process's user + system CPU time, from getrusage(RUSAGE_SELF)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return round((ru.ru_utime + ru.ru_stime) * 1e9)


# -- raw ---------------------------------------------------------------------


async def raw_connection(reader, writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            (n,) = U32.unpack(await reader.readexactly(4))
            if n > MAX_FRAME:
                break
            left = n
            while left:  # read through the payload without holding it whole
                got = await reader.read(min(left, 1 << 16))
                if not got:
                    raise EOFError
                left -= len(got)
            calls.add()
            writer.write(U32.pack(n))
            if writer.transport.get_write_buffer_size() > 1 << 16:
                await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, EOFError):
        pass
    finally:
        writer.close()


# -- http1 -------------------------------------------------------------------


class CallHandler(http.server.BaseHTTPRequestHandler):
    """POST /call answers `toll-received: n`; anything else is a 404."""

    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True

    def body_length(self):
        n = int(self.headers.get("Content-Length") or 0)
        left = n
        while left:
            got = len(self.rfile.read(min(left, 1 << 16)))
            if not got:
                raise ConnectionError("the client closed mid-body")
            left -= got
        return n

    def do_POST(self):
        n = self.body_length()
        if self.path != "/call":
            return self.not_found()
        calls.add()
        self.send_response_only(200)
        self.send_header("toll-received", str(n))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def not_found(self):
        self.send_response_only(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.body_length()
        self.not_found()

    do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def log_message(self, *args):  # stderr is for diagnostics, not for every call
        pass


def serve_http1(host, port):
    server = http.server.ThreadingHTTPServer((host, port), CallHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


# -- grpc --------------------------------------------------------------------


def _varint(data, i):
    shift = value = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        value |= (b & 0x7F) << shift
        i += 1
        if b < 0x80:
            return value, i
        shift += 7


def payload_length(data):
    """Decode Payload{bytes data = 1} to the length of its data (spec/rpc.proto);
    other fields are skipped, as protobuf requires."""
    i, n = 0, 0
    while i < len(data):
        tag, i = _varint(data, i)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, i = _varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            size, i = _varint(data, i)
            if field == 1:
                n = size  # proto3: the last one wins
            i += size
        else:
            raise ValueError(f"wire type {wire}")
    if i > len(data):
        raise ValueError("truncated field")
    return n


def encode_ack(n):
    """Encode Ack{uint32 received = 1}; proto3 writes nothing for 0."""
    if n == 0:
        return b""
    out = bytearray(b"\x08")
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


async def grpc_call(n, _context):
    calls.add()
    return n


async def serve_grpc(host, port):
    handler = grpc.method_handlers_generic_handler(
        "toll.rpc.v1.Null",
        {
            "Call": grpc.unary_unary_rpc_method_handler(
                grpc_call, request_deserializer=payload_length, response_serializer=encode_ack
            )
        },
    )
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", MAX_FRAME + 16)])
    server.add_generic_rpc_handlers((handler,))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"grpcio could not bind {host}:{port}")
    await server.start()
    servers.append(server)  # kept, or it would be collected and stop
    return bound


# -- control plane -----------------------------------------------------------

servers = []


async def serve(cmd):
    stack, host, port = cmd.get("stack"), cmd.get("host") or "127.0.0.1", int(cmd.get("port") or 0)
    if stack == "grpc" and grpc is None:
        return refuse(f"grpcio is not installed here: install it with `python3 -m pip install {GRPCIO_PIN}`")
    if stack == "h2":
        return refuse("the Python server has no h2 stack (the standard library has no HTTP/2 server): use the go or rust server")
    try:
        if stack == "raw":
            server = await asyncio.start_server(raw_connection, host, port)
            servers.append(server)
            bound = server.sockets[0].getsockname()[1]
        elif stack == "http1":
            bound = serve_http1(host, port)
        elif stack == "grpc":
            bound = await serve_grpc(host, port)
        else:
            return refuse(f"unknown stack {stack!r}: this server serves {', '.join(STACKS)}")
    except (OSError, OverflowError, RuntimeError) as e:
        return refuse(f"cannot listen on {host} port {port}: {e}")
    return {"ok": True, "event": "listening", "stack": stack, "port": bound}


def refuse(msg):
    print("toll-rpc-python:", msg, file=sys.stderr, flush=True)
    return {"ok": False, "error": msg}


def hello():
    version = f"python {platform.python_version()} " + (f"grpcio {grpc.__version__}" if grpc else "(no grpcio)")
    return {"ok": True, "runtime": "python", "version": version, "rpc": RPC_VERSION, "pid": os.getpid(), "stacks": STACKS}


async def control():
    loop = asyncio.get_running_loop()
    while True:
        # A thread reads stdin, so the event loop keeps serving calls meanwhile.
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break  # end of input: the harness is gone, so is the server
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
            op = cmd.get("op") if isinstance(cmd, dict) else None
        except ValueError as e:
            cmd, op = {}, None
            answer = refuse(f"not a JSON command: {e}")
        else:
            if op == "hello":
                answer = hello()
            elif op == "serve":
                answer = await serve(cmd)
            elif op == "stats":
                answer = {"ok": True, "calls": calls.n, "cpu_ns": cpu_ns()}
            elif op == "exit":
                break
            else:
                answer = refuse(f"unknown op {op!r}: valid ops are hello, serve, stats, exit")
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    # Stop at once: the http1 threads and grpcio's own are not waited for.
    os._exit(0)


def main():
    asyncio.run(control())


if __name__ == "__main__":
    main()
