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
import statistics
import subprocess
import sys

import pytest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
import tollbench  # noqa: E402


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
    assert os.path.isfile(os.path.join(tollbench.REFERENCE, "pingpong.c"))


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


def test_builds_are_cargos_release_toll_and_cc_O2_pingpong(ran):
    calls, _ = ran
    tollbench.build_toll()
    tollbench.build_toll(quiet=False)
    tollbench.build_pingpong()
    assert calls == [
        (["cargo", "build", "--release", "--quiet", "-p", "toll"], {"cwd": tollbench.ROOT, "check": True}),
        (["cargo", "build", "--release", "-p", "toll"], {"cwd": tollbench.ROOT, "check": True}),
        (["cc", "-O2", "-o", tollbench.PINGPONG, os.path.join(tollbench.REFERENCE, "pingpong.c")], {"check": True}),
    ]


BENCHES = sorted(f for f in os.listdir(SCRIPTS) if f.startswith("bench-") and os.path.isfile(os.path.join(SCRIPTS, f)))


@pytest.mark.parametrize("bench", BENCHES)
def test_each_bench_finds_the_module_from_any_directory(bench, tmp_path):
    # --help stops before anything is built or measured.
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, bench), "--help"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: {bench}")
