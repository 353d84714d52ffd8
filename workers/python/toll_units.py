"""spawn and ring (spec/wire.md) for toll's Python worker: OS threads
(threading; the ring passes the token through queue.Queue) and asyncio tasks
(the ring passes it through asyncio.Queue)."""
import asyncio
import queue
import threading
import time

UNITS = ["thread", "asyncio-task"]


def rss_kb():
    """VmRSS of this process, in kB (0 when unreadable)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Limit(Exception):
    """The runtime refused to make unit number `created` + 1."""

    def __init__(self, created, reason):
        super().__init__(reason)
        self.created = created
        self.reason = reason


def spawn_threads(n):
    gate = threading.Event()
    counted = [0]
    lock = threading.Lock()
    all_ready = threading.Event()

    def unit():
        with lock:
            counted[0] += 1
            if counted[0] == n:
                all_ready.set()
        gate.wait()

    threads = []
    m0 = rss_kb()
    t0 = time.perf_counter_ns()
    try:
        for _ in range(n):
            t = threading.Thread(target=unit, daemon=True)
            t.start()
            threads.append(t)
    except RuntimeError as e:  # "can't start new thread"
        gate.set()
        for t in threads:
            t.join()
        raise Limit(len(threads), str(e)) from None
    all_ready.wait()
    elapsed = time.perf_counter_ns() - t0
    mem = rss_kb() - m0
    with lock:
        made = counted[0]
    gate.set()
    for t in threads:
        t.join()
    return elapsed, mem, made


def ring_threads(n, m):
    last = n * m
    boxes = [queue.Queue() for _ in range(n)]
    done = queue.Queue()

    def unit(inbox, outbox):
        get, put = inbox.get, outbox.put
        for _ in range(m):
            v = get() + 1
            if v == last:
                done.put(v)
                return
            put(v)

    threads = []
    try:
        for i in range(n):
            t = threading.Thread(target=unit, args=(boxes[i], boxes[(i + 1) % n]), daemon=True)
            t.start()
            threads.append(t)
    except RuntimeError as e:
        for i in range(len(threads)):
            boxes[i].put(last - 1)  # each unit made takes the last token and ends
        for t in threads:
            t.join()
        raise Limit(len(threads), str(e)) from None
    t0 = time.perf_counter_ns()
    boxes[0].put(0)
    hops = done.get()
    elapsed = time.perf_counter_ns() - t0
    for t in threads:
        t.join()
    return elapsed, hops


async def spawn_tasks(n):
    gate = asyncio.Event()
    all_ready = asyncio.Event()
    counted = [0]

    async def unit():
        counted[0] += 1
        if counted[0] == n:
            all_ready.set()
        await gate.wait()

    m0 = rss_kb()
    t0 = time.perf_counter_ns()
    tasks = [asyncio.create_task(unit()) for _ in range(n)]
    await all_ready.wait()
    elapsed = time.perf_counter_ns() - t0
    mem = rss_kb() - m0
    made = counted[0]
    gate.set()
    await asyncio.gather(*tasks)
    return elapsed, mem, made


async def ring_tasks(n, m):
    last = n * m
    boxes = [asyncio.Queue() for _ in range(n)]
    done = asyncio.Queue()

    async def unit(inbox, outbox):
        for _ in range(m):
            v = await inbox.get() + 1
            if v == last:
                done.put_nowait(v)
                return
            outbox.put_nowait(v)

    tasks = [asyncio.create_task(unit(boxes[i], boxes[(i + 1) % n])) for i in range(n)]
    await asyncio.sleep(0)  # let every unit reach its first get()
    t0 = time.perf_counter_ns()
    boxes[0].put_nowait(0)
    hops = await done.get()
    elapsed = time.perf_counter_ns() - t0
    await asyncio.gather(*tasks)
    return elapsed, hops


def _unknown(unit):
    return {"ok": False, "error": f"unknown unit `{unit}`: the python worker has {', '.join(UNITS)}"}


def _limit(n, e):
    return {"ok": False, "limit": True, "created": e.created,
            "error": f"created {e.created} of {n} units: {e.reason}"}


def spawn(unit, n):
    """The answer to `spawn`."""
    if not isinstance(n, int) or n < 1:
        return {"ok": False, "error": "spawn needs a whole number n of at least 1"}
    try:
        if unit == "thread":
            elapsed, mem, made = spawn_threads(n)
        elif unit == "asyncio-task":
            elapsed, mem, made = asyncio.run(spawn_tasks(n))
        else:
            return _unknown(unit)
    except Limit as e:
        return _limit(n, e)
    except MemoryError:
        return {"ok": False, "limit": True, "created": 0, "error": f"created fewer than {n} units: out of memory"}
    return {"ok": True, "event": "done", "unit": unit, "n": n, "made": made, "ns": elapsed, "mem_kb": mem,
            "mem_how": "rss"}


def ring(unit, n, m):
    """The answer to `ring`."""
    if not isinstance(n, int) or not isinstance(m, int) or n < 2 or m < 1:
        return {"ok": False, "error": "a ring needs n of at least 2 and m of at least 1"}
    try:
        if unit == "thread":
            elapsed, hops = ring_threads(n, m)
        elif unit == "asyncio-task":
            elapsed, hops = asyncio.run(ring_tasks(n, m))
        else:
            return _unknown(unit)
    except Limit as e:
        return _limit(n, e)
    return {"ok": True, "event": "done", "unit": unit, "n": n, "m": m, "hops": hops, "ns": elapsed}
