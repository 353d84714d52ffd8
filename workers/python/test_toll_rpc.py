"""The Python RPC server passes spec/vectors/rpc and answers real calls on
every stack it lists, driven over its control plane as toll drives it.

Run: python3 -m pytest -q workers/python/test_toll_rpc.py
"""
import http.client
import json
import os
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import toll_rpc as r  # noqa: E402

VECTORS = os.path.join(HERE, "..", "..", "spec", "vectors", "rpc", "vectors.tsv")


def vectors():
    out = {}
    with open(VECTORS) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, stack, what, n, expect, hx = line.rstrip("\n").split("\t")
                out[name] = dict(stack=stack, what=what, n=int(n), expect=expect, data=b"" if hx == "-" else bytes.fromhex(hx))
    assert len(out) >= 10, "too few rpc vectors"
    return out


class Server:
    """The server as toll runs it: a child process on pipes."""

    def __init__(self):
        self.p = subprocess.Popen(
            [sys.executable, "-u", os.path.join(HERE, "toll_rpc.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline()
        assert answer, f"no answer to {line}"
        return json.loads(answer)

    def serve(self, stack):
        a = self.ask(json.dumps({"op": "serve", "stack": stack, "host": "127.0.0.1", "port": 0}))
        assert a["ok"] and a["event"] == "listening" and a["stack"] == stack, a
        return a["port"]

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait(5)


@pytest.fixture
def server():
    s = Server()
    yield s
    s.stop()


def test_grpc_messages_decode_and_encode_as_specified():
    for name, v in vectors().items():
        if v["stack"] != "grpc":
            continue
        if v["what"] == "request":
            assert r.payload_length(v["data"]) == v["n"], name
        else:
            assert r.encode_ack(v["n"]) == v["data"], name
    # Fields the server does not know are skipped, as protobuf requires.
    assert r.payload_length(b"\x10\x07" + b"\x0a\x02xx") == 2
    with pytest.raises(ValueError):
        r.payload_length(b"\x0a\x05xx")


def test_raw_frames_answer_as_specified(server):
    vs = vectors()
    port = server.serve("raw")
    for name, v in vs.items():
        if v["stack"] != "raw" or v["what"] != "request":
            continue
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            c.sendall(v["data"])
            if v["expect"] == "close":
                assert c.recv(4) == b"", f"{name}: answered instead of closing"
                continue
            want = vs[v["expect"].removeprefix("reply ")]["data"]
            got = b""
            while len(got) < len(want):
                chunk = c.recv(len(want) - len(got))
                assert chunk, f"{name}: closed after {got.hex()}"
                got += chunk
            assert got == want, name


def test_every_stack_answers_a_real_call_and_is_counted(server):
    hello = server.ask('{"op":"hello"}')
    assert hello["ok"] and hello["runtime"] == "python" and hello["rpc"] == 1
    assert hello["stacks"] == r.STACKS and "h2" not in hello["stacks"]
    before = server.ask('{"op":"stats"}')

    with socket.create_connection(("127.0.0.1", server.serve("raw")), timeout=5) as c:
        c.sendall(b"\x03\x00\x00\x00abc")
        assert c.recv(4) == b"\x03\x00\x00\x00"

    h1 = http.client.HTTPConnection("127.0.0.1", server.serve("http1"), timeout=5)
    for n in (0, 1000):  # one kept-alive connection
        h1.request("POST", "/call", body=b"x" * n)
        resp = h1.getresponse()
        assert resp.status == 200 and resp.getheader("toll-received") == str(n) and resp.read() == b""
    h1.request("GET", "/call")
    resp = h1.getresponse()
    assert resp.status == 404
    resp.read()
    h1.request("POST", "/other", body=b"xy")
    assert h1.getresponse().status == 404
    h1.close()
    calls = 3

    if "grpc" in hello["stacks"]:
        import grpc

        with grpc.insecure_channel(f"127.0.0.1:{server.serve('grpc')}") as ch:
            call = ch.unary_unary(
                "/toll.rpc.v1.Null/Call",
                request_serializer=lambda n: b"" if n == 0 else b"\x0a" + bytes([n]) + b"x" * n,
                response_deserializer=lambda b: b,
            )
            assert call(0, timeout=5) == b""
            assert call(5, timeout=5) == b"\x08\x05"
        calls += 2

    after = server.ask('{"op":"stats"}')
    assert after["calls"] - before["calls"] == calls
    assert after["cpu_ns"] >= before["cpu_ns"] > 0


def test_what_it_cannot_do_is_refused_and_it_keeps_answering(server):
    for line in ('{"op":"dance"}', '{"op":"serve","stack":"smtp"}', "not json", '{"op":"serve","stack":"h2"}',
                 '{"op":"serve","stack":"raw","host":"127.0.0.1","port":99999}'):
        a = server.ask(line)
        assert a["ok"] is False and a["error"], line
    assert server.ask('{"op":"hello"}')["ok"]


def test_grpc_without_grpcio_names_the_install(monkeypatch):
    monkeypatch.setattr(r, "grpc", None)
    import asyncio

    a = asyncio.run(r.serve({"stack": "grpc"}))
    assert a["ok"] is False and "pip install grpcio==" in a["error"]


def test_exit_and_end_of_input_stop_it():
    for how in ("exit", "eof"):
        s = Server()
        s.serve("raw")
        if how == "exit":
            s.p.stdin.write('{"op":"exit"}\n')
            s.p.stdin.flush()
        else:
            s.p.stdin.close()
        assert s.p.wait(5) == 0, how
