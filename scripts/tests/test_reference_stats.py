"""toll's statistics against a reference implementation (SciPy).

Real runs are measured and stored by the toll binary, then checked from
what `toll export` and `toll compare --json` print:

- every point's Mann–Whitney p equals `scipy.stats.mannwhitneyu` on the same
  samples: the exact distribution where toll says its p is exact, else the
  normal approximation with the continuity correction;
- every stored median interval is a pair of order statistics x(k), x(n+1-k)
  whose binomial coverage, 1 - 2·P(Binomial(n, 1/2) <= k - 1), equals the
  level stored beside it — for runs of 3, 5 and 10 trials.

The toll binary: $TOLL_BIN, else target/debug/toll (cargo test builds it).
"""
import json
import os
import subprocess

import pytest

scipy_stats = pytest.importorskip("scipy.stats")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLL = os.environ.get("TOLL_BIN") or os.path.join(ROOT, "target", "debug", "toll")


def toll(db, *args):
    out = subprocess.run([TOLL, "--db", db, *args], check=True, capture_output=True, text=True)
    return out.stdout


def transfer(db, trials):
    toll(db, "transfer", "--peer", "rust", "--via", "pipe", "--pin", "same",
         "--sizes", "0,1000,4000", "--trials", str(trials), "--warmup-ms", "5", "--batch-ms", "2")


def per_op(point):
    return [s["total_ns"] / s["iters"] for s in point["samples"]]


@pytest.fixture(scope="module", params=[3, 5, 10])
def runs(request, tmp_path_factory):
    if not os.path.exists(TOLL):
        pytest.skip(f"no toll binary at {TOLL} (cargo build first)")
    db = str(tmp_path_factory.mktemp(f"ref{request.param}") / "s.db")
    transfer(db, request.param)
    transfer(db, request.param)
    a = json.loads(toll(db, "export", "1", "--format", "json"))
    b = json.loads(toll(db, "export", "2", "--format", "json"))
    c = json.loads(toll(db, "compare", "1", "2", "--json"))
    return request.param, a, b, c


def test_mann_whitney_p_equals_scipys(runs):
    trials, a, b, c = runs
    compared = 0
    for sc in c["series"]:
        sa = next(s for s in a["series"] if s["label"] == sc["label"])
        sb = next(s for s in b["series"] if s["label"] == sc["label"])
        for pc in sc["points"]:
            if pc.get("change") is None:
                continue
            pa = next(p for p in sa["points"] if p["n"] == pc["n"])
            pb = next(p for p in sb["points"] if p["n"] == pc["n"])
            x, y = per_op(pa), per_op(pb)
            test = pc["change"]["test"]
            ref = scipy_stats.mannwhitneyu(
                x, y, alternative="two-sided",
                method="exact" if test["exact"] else "asymptotic", use_continuity=True)
            assert test["u"] == pytest.approx(ref.statistic, abs=1e-9), pc
            assert test["p"] == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-12), (trials, pc, ref)
            compared += 1
    assert compared > 0


def test_median_intervals_are_order_statistics_at_their_stored_level(runs):
    trials, a, b, _ = runs
    checked = 0
    for run in (a, b):
        for s in run["series"]:
            for p in s["points"]:
                m = p.get("summary")
                if not m:
                    continue
                values = sorted(per_op(p))
                n = len(values)
                assert n == m["count"] == trials
                # The interval's ends are the k-th smallest and k-th largest.
                ks = [k for k in range(1, n // 2 + 2)
                      if values[k - 1] == pytest.approx(m["ci_low"], rel=1e-12)
                      and values[n - k] == pytest.approx(m["ci_high"], rel=1e-12)]
                assert ks, (values, m)
                levels = [1 - 2 * scipy_stats.binom.cdf(k - 1, n, 0.5) for k in ks]
                level = m.get("ci_level")
                if level is None:
                    assert max(levels) >= 0.95
                else:
                    assert any(lv == pytest.approx(level, abs=1e-12) for lv in levels), (levels, level)
                checked += 1
    assert checked > 0
    if trials == 3:
        levels = {p["summary"]["ci_level"] for s in a["series"] for p in s["points"] if p.get("summary")}
        assert levels == {0.75}


def null_u_cdf(m, n):
    """P(U <= u) for every u under the null, by enumerating every way the
    m values of A can sit among the m + n ranks (no ties): an independent
    reference for toll's counted distribution."""
    from itertools import combinations
    counts = [0] * (m * n + 1)
    for ranks in combinations(range(1, m + n + 1), m):
        counts[sum(ranks) - m * (m + 1) // 2] += 1
    total, acc, cdf = sum(counts), 0, []
    for c in counts:
        acc += c
        cdf.append(acc / total)
    return cdf


def test_change_interval_is_hodges_lehmanns_at_the_level_it_says(runs):
    """The change's interval: of every ratio b/a, the k-th smallest and
    largest, k the largest rank with 2·P(U <= k - 1) <= 5% (else 1), at the
    level 1 - 2·P(U <= k - 1) it stores; widened only to hold the ratio of
    medians it prints."""
    trials, a, b, c = runs
    cdf = null_u_cdf(trials, trials)
    ks = [k for k in range(1, trials * trials // 2 + 1) if cdf[k - 1] <= 0.025 + 1e-12]
    k = max(ks) if ks else 1
    level = 1 - 2 * cdf[k - 1]
    checked = 0
    for sc in c["series"]:
        sa = next(s for s in a["series"] if s["label"] == sc["label"])
        sb = next(s for s in b["series"] if s["label"] == sc["label"])
        for pc in sc["points"]:
            ch = pc.get("change")
            if ch is None:
                continue
            x = per_op(next(p for p in sa["points"] if p["n"] == pc["n"]))
            y = per_op(next(p for p in sb["points"] if p["n"] == pc["n"]))
            ratios = sorted(yi / xi for yi in y for xi in x)
            r = (1 + ch["change"])
            lo, hi = min(ratios[k - 1], r) - 1, max(ratios[-k], r) - 1
            assert ch["change_ci"][0] == pytest.approx(lo, rel=1e-9, abs=1e-12), (trials, pc)
            assert ch["change_ci"][1] == pytest.approx(hi, rel=1e-9, abs=1e-12), (trials, pc)
            assert ch["change_level"] == pytest.approx(level, abs=1e-12), (trials, ch)
            checked += 1
    assert checked > 0
    if trials == 3:
        assert level == pytest.approx(0.9)


def test_widened_fit_intervals_use_students_t_at_their_degrees_of_freedom(runs):
    """Each fit's shown α and β: the run's own interval widened in
    quadrature by t(df)·σ of the run-to-run term (1.96·σ at the floor),
    t from scipy; the decision says 95% at 3, 5 and 10 rounds alike (what
    the fit's coverage tests measure it earns)."""
    trials, _, b, _ = runs
    checked = 0
    for s in b["series"]:
        fit = s.get("fit") or {}
        r, d = fit.get("run_to_run"), fit.get("decision")
        if not r or not d:
            continue
        assert d["alpha"]["level"] == 0.95 and d["beta"]["level"] == 0.95
        floor = 0.01 * abs(d["alpha"]["value"])
        for key, sd_key, within_key in (("alpha", "alpha_sd", "alpha_ci_within"),):
            est = d[key]["value"]
            sd = r[sd_key]
            k = 1.959964 if sd <= floor * (1 + 1e-9) else scipy_stats.t.ppf(0.975, r["df"])
            hi_within = r[within_key][1] - est
            want = est + (hi_within ** 2 + (k * sd) ** 2) ** 0.5
            assert d[key]["ci"][1] == pytest.approx(want, rel=1e-3), (trials, s["label"], r, d[key])
            checked += 1
    assert checked > 0
