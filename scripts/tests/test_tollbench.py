"""The bench scripts' shared helpers (scripts/lib/tollbench.py).

The intervals are checked against a direct computation of the same
bootstrap (the resampling written out index by index, as random.choices
draws it), against the order statistics they must be, and for coverage on
seeded samples of a known distribution; the process helpers for the exact
command lines the scripts ran before they shared them. Nothing here starts
toll or measures anything.
"""
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys

import pytest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
import tollbench  # noqa: E402


WORKERS_C = os.path.join(tollbench.ROOT, "workers", "c")

def direct_ci(xs, statistic, seed, resamples):
    """The percentile bootstrap written out: resample i draws index
    floor(u * n) for each of n uniforms u; the interval is the
    (2.5% · B + 1)-th and (97.5% · B)-th smallest of the B statistics."""
    rng = random.Random(seed)
    n = len(xs)
    stats = []
    for _ in range(resamples):
        stats.append(statistic([xs[math.floor(rng.random() * n)] for _ in range(n)]))
    stats.sort()
    return stats[resamples * 25 // 1000], stats[resamples * 975 // 1000 - 1]


def seeded(seed, n):
    rng = random.Random(seed)
    return [rng.lognormvariate(0, 0.5) for _ in range(n)]


@pytest.mark.parametrize("n", [2, 5, 15, 60])
def test_median_ci_is_the_direct_bootstrap_with_bench_files_seed(n):
    xs = seeded(n, n)
    assert tollbench.median_ci(xs) == direct_ci(xs, statistics.median, 4, 2000)
    assert tollbench.median_ci(xs, resamples=400, seed=9) == direct_ci(xs, statistics.median, 9, 400)


@pytest.mark.parametrize("n", [2, 8, 40])
def test_mean_ci_is_the_direct_bootstrap_with_bench_execs_seed(n):
    xs = seeded(100 + n, n)
    assert tollbench.mean_ci(xs) == direct_ci(xs, statistics.fmean, 7, 2000)


def test_median_ci_of_an_odd_count_ends_on_order_statistics_around_the_median():
    # Every resample of an odd count has a sample as its median, so both
    # ends are samples, on either side of the sample median.
    xs = seeded(3, 21)
    lo, hi = tollbench.median_ci(xs)
    assert lo in xs and hi in xs
    ranked = sorted(xs)
    assert ranked.index(lo) < 10 < ranked.index(hi)


def test_a_constant_sample_has_a_zero_width_interval():
    assert tollbench.median_ci([3.5] * 9) == (3.5, 3.5)
    assert tollbench.mean_ci([2.0] * 4) == (2.0, 2.0)


@pytest.mark.parametrize("ci, true_value, lo_ok, hi_ok", [
    # Lognormal(0, 0.5): median 1, mean exp(0.125). A percentile bootstrap
    # runs a little under 95% at n = 25 (the median's resamples are
    # discrete; the mean's ignore the skew); far from it would be a bug.
    (tollbench.median_ci, 1.0, 0.90, 0.99),
    (tollbench.mean_ci, math.exp(0.125), 0.88, 0.97),
])
def test_intervals_cover_the_true_value_about_95_percent_of_seeded_samples(ci, true_value, lo_ok, hi_ok):
    samples = 400
    hits = 0
    for s in range(samples):
        lo, hi = ci(seeded(1000 + s, 25), resamples=400)
        hits += lo <= true_value <= hi
    assert lo_ok <= hits / samples <= hi_ok, hits / samples


def test_alternating_swaps_the_order_every_other_round():
    tools = ["ref", "toll", "twin"]
    assert tollbench.alternating(tools, 0) == ["ref", "toll", "twin"]
    assert tollbench.alternating(tools, 1) == ["twin", "toll", "ref"]
    assert tollbench.alternating(tools, 4) == tools
    # Over any two rounds each end of the list goes first once.
    assert {tollbench.alternating(tools, r)[0] for r in (6, 7)} == {"ref", "twin"}
    assert tools == ["ref", "toll", "twin"]


def test_slope_is_the_least_squares_slope():
    # An exact line gives its slope whatever the intercept; noise around it
    # gives the textbook formula's value (here worked by hand).
    assert tollbench.slope([0, 4000, 40000, 400000], [50 + 0.02 * b for b in (0, 4000, 40000, 400000)]) \
        == pytest.approx(0.02)
    assert tollbench.slope([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        tollbench.slope([7, 7], [1, 2])


def test_typed_quotes_what_a_shell_would_split():
    assert tollbench.typed(["h2load", "-n", 200, "-H", "accept: */*"]) == "h2load -n 200 -H 'accept: */*'"
    assert tollbench.typed(["/t/toll", "--db", "/tmp/a b/x.db"]) == "/t/toll --db '/tmp/a b/x.db'"


def test_cpu_model_reads_the_model_name(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n")
    assert tollbench.cpu_model(str(info)) == "AMD EPYC 7B13"
    info.write_text("processor\t: 0\nFeatures\t: fp asimd\n")
    assert tollbench.cpu_model(str(info)) == "?"


def test_paths_are_the_repositorys():
    assert os.path.isfile(os.path.join(tollbench.ROOT, "Cargo.toml"))
    assert tollbench.TOLL == os.path.join(tollbench.ROOT, "target", "release", "toll")
    assert tollbench.PINGPONG == os.path.join(tollbench.ROOT, "target", "pingpong")
    assert tollbench.MEMCPY == os.path.join(tollbench.ROOT, "target", "memcpy")
    assert os.path.isfile(os.path.join(tollbench.REFERENCE, "pingpong.c"))
    assert os.path.isfile(os.path.join(tollbench.REFERENCE, "memcpy.c"))


@pytest.fixture
def ran(monkeypatch):
    """subprocess.run recorded instead of run; it answers `answer[0]`."""
    calls, answer = [], [""]

    def run(argv, **kw):
        calls.append((list(argv), kw))
        return subprocess.CompletedProcess(argv, 0, answer[0], "")
    monkeypatch.setattr(tollbench.subprocess, "run", run)
    return calls, answer


def test_toll_json_runs_toll_on_its_store_and_parses_what_it_prints(ran):
    calls, answer = ran
    answer[0] = json.dumps({"series": [{"label": "rust/pipe"}]})
    got = tollbench.toll_json("/s.db", "file", "--runtime", "rust", "--json", prefix=["taskset", "-c", "1"])
    assert got == {"series": [{"label": "rust/pipe"}]}
    assert calls == [(["taskset", "-c", "1", tollbench.TOLL, "--db", "/s.db", "file", "--runtime", "rust", "--json"],
                      {"check": True, "capture_output": True, "text": True})]


def test_toll_passes_its_keywords_through(ran):
    calls, _ = ran
    tollbench.toll("/s.db", "exec", "-N", "true", stdout=subprocess.DEVNULL)
    assert calls == [([tollbench.TOLL, "--db", "/s.db", "exec", "-N", "true"],
                      {"check": True, "stdout": subprocess.DEVNULL})]


def test_pingpong_runs_the_c_reference_and_returns_its_times(ran):
    calls, answer = ran
    answer[0] = json.dumps({"per_op_ns": [5100.0, 4900.0, 5000.0]})
    assert tollbench.pingpong("unix", 100000, 20, 10, "split") == [5100.0, 4900.0, 5000.0]
    assert calls[0][0] == [tollbench.PINGPONG, "--via", "unix", "--items", "100000", "--iters", "20",
                           "--trials", "10", "--pin", "split"]


def test_memcpy_runs_the_c_reference_on_one_core_and_parses_it(ran):
    calls, answer = ran
    answer[0] = json.dumps({"pin": "same", "cpu": 0, "bytes": [0, 4000], "per_copy_ns": [[3.0], [80.0]],
                            "ns_per_byte": [0.0, 0.02]})
    got = tollbench.memcpy([0, 4000], 1)
    assert got["per_copy_ns"] == [[3.0], [80.0]]
    assert calls[0][0] == [tollbench.MEMCPY, "--bytes", "0,4000", "--trials", "1", "--batch-ms", "10",
                           "--warmup-ms", "100", "--pin", "same", "--op", "copy"]
    assert tollbench.memcpy_argv([4, 8], 5, batch_ms=2, warmup_ms=0, pin="none", op="copy+sum") == [
        tollbench.MEMCPY, "--bytes", "4,8", "--trials", "5", "--batch-ms", "2", "--warmup-ms", "0", "--pin", "none",
        "--op", "copy+sum"]
    assert tollbench.memcpy_argv([4], 1, op="copy+sum", ring=1 << 20)[-4:] == ["--op", "copy+sum", "--ring", "1048576"]


def test_builds_are_cargos_release_toll_and_cc_O2_references(ran):
    calls, _ = ran
    tollbench.build_toll()
    tollbench.build_toll(quiet=False)
    tollbench.build_pingpong()
    tollbench.build_memcpy()
    assert calls == [
        (["cargo", "build", "--release", "--quiet", "-p", "toll"], {"cwd": tollbench.ROOT, "check": True}),
        (["cargo", "build", "--release", "-p", "toll"], {"cwd": tollbench.ROOT, "check": True}),
        (["cc", "-O2", "-o", tollbench.PINGPONG, os.path.join(tollbench.REFERENCE, "pingpong.c")], {"check": True}),
        (["cc", "-O2", "-I", WORKERS_C, "-o", tollbench.MEMCPY, os.path.join(tollbench.REFERENCE, "memcpy.c"),
          os.path.join(WORKERS_C, "wire.c")], {"check": True}),
    ]


def test_memcpy_reference_copies_and_reports_every_size(tmp_path):
    # Built and run for real at the smallest settings: its JSON has one
    # time per trial per size, positive past 0 bytes. No figure is judged.
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    exe = tmp_path / "memcpy"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-I", WORKERS_C, "-o", str(exe),
                    os.path.join(tollbench.REFERENCE, "memcpy.c"), os.path.join(WORKERS_C, "wire.c")], check=True)
    for op in ("copy", "copy+sum"):
        out = subprocess.run([str(exe), "--bytes", "0,4096,40000", "--trials", "2", "--batch-ms", "1",
                              "--warmup-ms", "1", "--pin", "none", "--op", op],
                             capture_output=True, text=True, check=True)
        got = json.loads(out.stdout)
        assert got["bytes"] == [0, 4096, 40000] and got["pin"] == "none" and got["op"] == op
        assert [len(ts) for ts in got["per_copy_ns"]] == [2, 2, 2]
        assert all(t > 0 for ts in got["per_copy_ns"][1:] for t in ts)
        assert got["ns_per_byte"][0] == 0 and got["ns_per_byte"][2] > 0
    # --ring: copies land one after another in a destination of that size,
    # wrapping (40000 does not divide 65536); a copy longer than the ring
    # (40000 through 4096) streams through it piece by piece; a ring of
    # part of an item is refused.
    for op in ("copy", "copy+sum"):
        for ring in ("65536", "4096"):
            out = subprocess.run([str(exe), "--bytes", "4096,40000", "--trials", "2", "--batch-ms", "1",
                                  "--warmup-ms", "1", "--pin", "none", "--op", op, "--ring", ring],
                                 capture_output=True, text=True, check=True)
            got = json.loads(out.stdout)
            assert got["ring"] == int(ring) and got["op"] == op
            assert all(t > 0 for ts in got["per_copy_ns"] for t in ts)
    for ring in ("1001", "40002"):
        bad = subprocess.run([str(exe), "--bytes", "4096,40000", "--trials", "1", "--ring", ring],
                             capture_output=True, text=True)
        assert bad.returncode == 2 and "--ring" in bad.stderr, bad.stderr
    bad = subprocess.run([str(exe), "--bytes", "4,x", "--trials", "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--bytes" in bad.stderr
    bad = subprocess.run([str(exe), "--bytes", "4", "--trials", "1", "--op", "move"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--op" in bad.stderr


BENCHES = sorted(f for f in os.listdir(SCRIPTS) if f.startswith("bench-") and os.path.isfile(os.path.join(SCRIPTS, f)))


@pytest.mark.parametrize("bench", BENCHES)
def test_each_bench_finds_the_module_from_any_directory(bench, tmp_path):
    # --help stops before anything is built or measured.
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, bench), "--help"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: {bench}")
