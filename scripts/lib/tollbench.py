"""What the bench scripts share: where toll and the C references live, how
each is built and run, the machine's name, the order of a round, the
bootstrap intervals and line fits the scripts print, and a command as it
would be typed.

Each scripts/bench-* puts this folder on sys.path relative to its own file,
so it runs as `scripts/bench-x` from the repository or from anywhere else.
Standard library only, as the scripts are.
"""
import json
import os
import random
import shlex
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLL = os.path.join(ROOT, "target", "release", "toll")
REFERENCE = os.path.join(ROOT, "scripts", "reference")
PINGPONG = os.path.join(ROOT, "target", "pingpong")
MEMCPY = os.path.join(ROOT, "target", "memcpy")


# Statistics first, with no processes in them (scripts/tests checks them alone).

def bootstrap_ci(xs, statistic, seed, resamples=2000):
    """Percentile bootstrap 95% CI of statistic(xs): the 2.5% and 97.5%
    order statistics of `resamples` resampled statistics, drawn by
    random.Random(seed) so a script prints the same interval for the same
    samples."""
    rng = random.Random(seed)
    stats = sorted(statistic(rng.choices(xs, k=len(xs))) for _ in range(resamples))
    return stats[int(0.025 * resamples)], stats[int(0.975 * resamples) - 1]


# Each script's own seed, kept so its figures match the dated results it
# printed before the helpers were shared.

def mean_ci(xs, resamples=2000, seed=7):
    """Percentile bootstrap 95% CI of the mean (bench-exec's CI width)."""
    return bootstrap_ci(xs, statistics.fmean, seed, resamples)


def median_ci(xs, resamples=2000, seed=4):
    """Percentile bootstrap 95% CI of the median (bench-file's ratio cells)."""
    return bootstrap_ci(xs, statistics.median, seed, resamples)


def slope(xs, ys):
    """The least-squares slope of ys on xs: a per-unit cost with the fixed
    cost left out (bench-shm's memcpy ns per byte across its sizes)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("a slope needs at least two different sizes")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def typed(argv):
    """A command as one would type it in a shell: what the scripts print
    under "commands" so a row can be run again by hand."""
    return shlex.join(str(a) for a in argv)


def alternating(items, rnd):
    """`items` in round `rnd`'s order: as given in even rounds, reversed in
    odd ones, so the machine's drift does not always fall on the same side
    of a comparison."""
    return items if rnd % 2 == 0 else items[::-1]


def cpu_model(cpuinfo="/proc/cpuinfo"):
    """The CPU's model name, as the kernel reports it ("?" when it does not)."""
    with open(cpuinfo) as f:
        return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")


def build_toll(quiet=True):
    """Build the release toll the scripts measure (target/release/toll)."""
    subprocess.run(["cargo", "build", "--release", *(["--quiet"] if quiet else []), "-p", "toll"],
                   cwd=ROOT, check=True)


def build_pingpong():
    """Compile the bare C ping-pong (scripts/reference/pingpong.c) to target/pingpong."""
    os.makedirs(os.path.dirname(PINGPONG), exist_ok=True)
    subprocess.run(["cc", "-O2", "-o", PINGPONG, os.path.join(REFERENCE, "pingpong.c")], check=True)


def build_memcpy():
    """Compile the memcpy reference (scripts/reference/memcpy.c) to target/memcpy."""
    os.makedirs(os.path.dirname(MEMCPY), exist_ok=True)
    workers_c = os.path.join(ROOT, "workers", "c")
    subprocess.run(["cc", "-O2", "-I", workers_c, "-o", MEMCPY, os.path.join(REFERENCE, "memcpy.c"),
                    os.path.join(workers_c, "wire.c")], check=True)


def memcpy_argv(sizes, trials, batch_ms=10, warmup_ms=100, pin="same", op="copy", ring=0):
    """The memcpy reference's command line: each of `sizes` bytes copied
    `trials` batches of about `batch_ms`, on one core with pin "same";
    op "copy+sum": each copy then summed as the C worker sums a frame;
    ring: copies land one after another in a destination of that many bytes
    (toll's shared-memory ring: 1 MiB) instead of at its start."""
    argv = [MEMCPY, "--bytes", ",".join(str(b) for b in sizes), "--trials", str(trials),
            "--batch-ms", str(batch_ms), "--warmup-ms", str(warmup_ms), "--pin", pin, "--op", op]
    return argv + (["--ring", str(ring)] if ring else [])


def memcpy(sizes, trials, batch_ms=10, warmup_ms=100, pin="same", op="copy", ring=0):
    """Run the memcpy reference; its JSON, parsed (per_copy_ns per size, one
    per trial)."""
    out = subprocess.run(memcpy_argv(sizes, trials, batch_ms, warmup_ms, pin, op, ring),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def pingpong(via, items, iters, trials, pin):
    """The C ping-pong's time per operation (ns), one per trial: `items`
    int32s each way over `via`, `iters` round trips a trial."""
    out = subprocess.run(
        [PINGPONG, "--via", via, "--items", str(items), "--iters", str(iters), "--trials", str(trials),
         "--pin", pin],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["per_op_ns"]


def toll(db, *args, prefix=(), **kw):
    """Run `toll --db DB ARGS` (after `prefix`, e.g. a taskset); failing if
    toll does; `kw` go to subprocess.run."""
    return subprocess.run([*prefix, TOLL, "--db", db, *args], check=True, **kw)


def toll_json(db, *args, prefix=()):
    """Run `toll --db DB ARGS` and return what it printed, parsed: ARGS ask
    for JSON (`--json`, or `export`), where in the line the command wants."""
    return json.loads(toll(db, *args, prefix=prefix, capture_output=True, text=True).stdout)
