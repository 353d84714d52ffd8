//! `toll transfer` end to end: real worker processes over real pipes, sockets
//! and shared memory; the run stored, listed, shown, exported and plotted.

mod common;
use common::*;

fn transfer(s: &Scratch, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["transfer", "--sizes", "0,1000,4000"];
    args.extend_from_slice(QUICK);
    args.extend_from_slice(extra);
    s.toll(&args)
}

/// Every series of the run: (label, fitted α ns, β ns/item, points measured).
fn series(run: &serde_json::Value) -> Vec<(String, f64, f64, usize)> {
    run["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let fit = &s["fit"]["robust"];
            (
                s["label"].as_str().unwrap().to_string(),
                fit["alpha"].as_f64().unwrap(),
                fit["beta"].as_f64().unwrap(),
                s["points"].as_array().unwrap().len(),
            )
        })
        .collect()
}

#[test]
fn rust_peer_over_every_transport_is_stored_listed_shown_exported_and_plotted() {
    let s = Scratch::new("rust-all");
    let plot = s.0.join("e1.svg");
    let o = transfer(&s, &["--plot", plot.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("placement: split (harness cpu"), "{out}");
    assert!(
        out.contains("the default"),
        "the default placement must be stated: {out}"
    );
    for via in ["pipe", "unix", "tcp", "shm"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("rust") && l.contains(via)),
            "no {via} row: {out}"
        );
    }

    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["family"], "transfer");
    let ser = series(&run);
    assert_eq!(ser.len(), 4);
    for (i, (label, _, _, points)) in ser.iter().enumerate() {
        assert_eq!(*points, 3, "{label}");
        let fit = &run["series"][i]["fit"];
        let primary = &fit["weighted"];
        let num = |v: &serde_json::Value| v.as_f64().unwrap();
        let (alpha, beta, beta_low) = (
            num(&primary["alpha"]),
            num(&primary["beta"]),
            num(&primary["beta_ci"][0]),
        );
        // α is the cost of an empty message: it must agree with the round
        // trip measured at n = 0 — or the table must say the line does not
        // describe the small end. Likewise sending more items costs more,
        // and where the noise hides it the table must not call the fit ok.
        let t0 = num(&run["series"][i]["points"][0]["summary"]["median"]);
        assert_eq!(run["series"][i]["points"][0]["n"], 0);
        assert_eq!(
            num(&fit["check"]["small_end"]["n"]),
            0.0,
            "the small end is checked"
        );
        let via = label.split('/').nth(1).unwrap();
        let row = out
            .lines()
            .find(|l| l.starts_with("rust") && l.split_whitespace().nth(1) == Some(via))
            .unwrap();
        let clean = row.ends_with(" ok");
        assert!(
            (alpha >= t0 / 3.0 && alpha <= 3.0 * t0) || !clean,
            "{label}: α = {alpha} ns against t(0) = {t0} ns shown as a clean fit: {row}"
        );
        assert!(
            (beta > 0.0 && beta_low > 0.0) || !clean,
            "{label}: β = {beta} [{beta_low}, …] shown as a clean fit: {row}"
        );
        if clean {
            assert_eq!(fit["check"]["small_end"]["agrees"], true, "{row}");
            assert_eq!(fit["check"]["lack_of_fit"]["fits"], true, "{row}");
        }
    }
    // Every trial is kept, with its batch size.
    let samples = &run["series"][0]["points"][0]["samples"];
    assert_eq!(samples.as_array().unwrap().len(), 3);
    assert!(samples[0]["iters"].as_u64().unwrap() >= 1);
    assert!(run["env"]["cpu_model"].as_str().is_some());
    assert!(run["config"]["placement"]["harness_cpu"].is_number());

    let runs = s.toll(&["runs"]);
    assert!(
        stdout(&runs).contains("transfer") && stdout(&runs).contains("complete"),
        "{}",
        stdout(&runs)
    );
    let show = s.toll(&["show"]);
    assert!(show.status.success());
    assert!(stdout(&show).contains("rust/shm"), "{}", stdout(&show));

    let csv = s.toll(&["export", "last", "--format", "csv"]);
    let csv = stdout(&csv);
    // a header, then 4 series × 3 sizes × 3 trials
    assert_eq!(csv.lines().count(), 1 + 4 * 3 * 3, "{csv}");

    let svg = std::fs::read_to_string(&plot).expect("plot written");
    assert!(svg.contains("<svg") && svg.contains("rust/pipe"));

    let rm = s.toll(&["rm", "last"]);
    assert!(rm.status.success());
    assert!(stdout(&s.toll(&["runs"])).contains("no runs"));
}

/// More series than the plot has colours (issue 48): a panel per peer, a
/// line per transport, each panel's colours distinct.
#[test]
fn many_series_plot_as_a_panel_per_peer() {
    let s = Scratch::new("panels");
    let plot = s.0.join("peers.svg");
    let o = transfer(
        &s,
        &[
            "--peer",
            "rust,c",
            "--pin",
            "none",
            "--plot",
            plot.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&plot).expect("plot written");
    let panels: Vec<&str> = svg
        .split("<svg class=\"panel\"")
        .skip(1)
        .map(|p| p.split_once("</svg>").map_or(p, |x| x.0))
        .collect();
    assert_eq!(panels.len(), 2, "a panel per peer: {svg}");
    for (panel, peer) in panels.iter().zip(["rust", "c"]) {
        assert!(
            panel.contains(&format!(">\n{peer}\n</text>")),
            "{peer}'s title"
        );
        // The markers' colours: one per transport, none repeated.
        let fills: std::collections::BTreeSet<&str> = ["<circle", "<rect", "<polygon"]
            .iter()
            .flat_map(|e| panel.split(e).skip(1))
            .filter_map(|m| m.split_once("fill=\"#")?.1.split_once('"').map(|x| x.0))
            .filter(|c| *c != "FFFFFF")
            .collect();
        assert_eq!(fills.len(), 4, "{peer}: {fills:?}");
    }
    for via in ["pipe", "unix", "tcp", "shm"] {
        assert!(
            svg.contains(&format!(">\n{via}\n</text>")),
            "{via} in the legend"
        );
    }
}

#[test]
fn c_peer_speaks_every_transport() {
    let s = Scratch::new("c-all");
    let o = transfer(&s, &["--peer", "c", "--pin", "none"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    let labels: Vec<String> = series(&run).into_iter().map(|x| x.0).collect();
    assert_eq!(labels, ["c/pipe", "c/unix", "c/tcp", "c/shm"]);
    assert!(run["env"]["toolchains"].to_string().contains("cc"));
}

#[test]
fn python_peer_speaks_pipe_unix_and_tcp() {
    let s = Scratch::new("py-all");
    let o = transfer(&s, &["--peer", "python", "--pin", "same"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("placement: same (harness cpu"));
    let run = export_json(&s, "last");
    let labels: Vec<String> = series(&run).into_iter().map(|x| x.0).collect();
    assert_eq!(labels, ["python/pipe", "python/unix", "python/tcp"]);
}

#[test]
fn node_peer_speaks_pipe_unix_and_tcp() {
    let s = Scratch::new("node-all");
    let o = transfer(&s, &["--peer", "node"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    let labels: Vec<String> = series(&run).into_iter().map(|x| x.0).collect();
    assert_eq!(labels, ["node/pipe", "node/unix", "node/tcp"]);
    assert!(run["env"]["toolchains"].to_string().contains("node"));
}

#[test]
fn go_java_and_erlang_peers_speak_pipe_unix_and_tcp() {
    let s = Scratch::new("go-java-erlang");
    let o = transfer(&s, &["--peer", "go,java,erlang"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    let labels: Vec<String> = series(&run).into_iter().map(|x| x.0).collect();
    let want: Vec<String> = ["go", "java", "erlang"]
        .iter()
        .flat_map(|p| ["pipe", "unix", "tcp"].map(|t| format!("{p}/{t}")))
        .collect();
    assert_eq!(labels, want);
    for (label, _, beta, points) in series(&run) {
        assert_eq!(points, 3, "{label}");
        assert!(beta.is_finite(), "{label}");
    }
    let tools = run["env"]["toolchains"].to_string();
    assert!(tools.contains("go") && tools.contains("java") && tools.contains("erl"));
}

/// Haskell is optional: this test needs `ghc`, so it is ignored (cargo
/// counts it as ignored, not passed) where the build found none
/// (`cfg(toll_ghc)`).
#[test]
#[cfg_attr(not(toll_ghc), ignore = "needs ghc: apt-get install ghc")]
fn haskell_peer_transfers_spawns_and_rings_when_ghc_is_present() {
    if let Err(e) = toll_peers::Runtime::Haskell.detect() {
        panic!("built with ghc (cfg toll_ghc) but {e}; or rebuild (touch crates/store/build.rs) to ignore this test");
    }
    let s = Scratch::new("haskell");
    let o = transfer(&s, &["--peer", "haskell"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    let labels: Vec<String> = series(&run).into_iter().map(|x| x.0).collect();
    assert_eq!(labels, ["haskell/pipe", "haskell/unix", "haskell/tcp"]);
    let o = s.toll(&[
        "spawn",
        "--runtime",
        "haskell",
        "-n",
        "10,300",
        "--trials",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("forkio"));
    let o = s.toll(&["ring", "--runtime", "haskell", "-n", "3,20", "-m", "15"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    let ring = &run["series"][0];
    assert_eq!(ring["label"], "haskell/forkio");
    for p in ring["points"].as_array().unwrap() {
        assert_eq!(p["status"], "ok", "{p}");
        let n = p["n"].as_u64().unwrap();
        assert_eq!(p["samples"][0]["iters"].as_u64(), Some(n * 15));
    }
}

#[test]
fn shm_can_spin_instead_of_sleeping() {
    let s = Scratch::new("spin");
    let o = transfer(&s, &["--peer", "rust,c", "--via", "shm", "--spin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = export_json(&s, "last");
    assert_eq!(run["series"][1]["attrs"]["spin"], true);
}

#[test]
fn json_output_is_the_stored_run() {
    let s = Scratch::new("json");
    let o = transfer(&s, &["--via", "pipe", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON only");
    assert_eq!(v["schema_version"], 5);
    assert_eq!(v, export_json(&s, "last"));
}

#[test]
fn cis_learn_run_to_run_variation_from_earlier_runs_of_the_same_series() {
    let s = Scratch::new("run-to-run");
    let fit_of = |run: &serde_json::Value| run["series"][0]["fit"].clone();
    for _ in 0..3 {
        let o = transfer(&s, &["--via", "pipe", "--pin", "same"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let runs: Vec<serde_json::Value> = (1..=3).map(|i| export_json(&s, &i.to_string())).collect();
    for (i, run) in runs.iter().enumerate() {
        let fit = fit_of(run);
        let r = &fit["run_to_run"];
        assert_eq!(r["earlier_runs"], i, "run {}: {r}", i + 1);
        assert_eq!(r["source"], if i == 0 { "floor" } else { "history" });
        // One series: no other series for the machine's share to learn from.
        assert!(r.get("machine").is_none(), "{r}");
        // The shown CI holds this run's own, and is wider.
        let (within, shown) = (&r["alpha_ci_within"], &fit["weighted"]["alpha_ci"]);
        let f = |v: &serde_json::Value, k: usize| v[k].as_f64().unwrap();
        assert!(
            f(shown, 0) < f(within, 0) && f(shown, 1) > f(within, 1),
            "{shown} vs {within}"
        );
        assert!(r["alpha_sd"].as_f64().unwrap() > 0.0);
        // Its degrees of freedom: the earlier runs less one (this run
        // never counts), and the floor's 2 once there are any.
        assert_eq!(
            r["df"],
            if i < 2 { 0 } else { i - 1 + 2 },
            "run {}: {r}",
            i + 1
        );
    }
    // Another placement is another series' history; the same-core runs
    // still say how far this machine moves between runs.
    let o = transfer(&s, &["--via", "pipe", "--pin", "split"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let split = export_json(&s, "last");
    let r = &fit_of(&split)["run_to_run"];
    assert_eq!(r["earlier_runs"], 0, "{r}");
    assert_eq!(r["source"], "machine", "{r}");
    assert_eq!(r["machine"]["series"], 1, "{r}");
    // The same-core series' three runs give each of α and β 2 degrees of
    // freedom — where its mean stands clear of its own noise: on a busy
    // machine α's may not, and then it gives none (and says so).
    let (da, db) = (&r["machine"]["df"], &r["machine"]["beta_df"]);
    assert!(da == 2 || da == 0, "{r}");
    assert!(db == 2 || db == 0, "{r}");
    assert!(da == 2 || db == 2, "{r}");
    assert_eq!(r["df"], *da, "{r}");
    let out = stdout(&s.toll(&["show", "4"]));
    assert!(out.contains("from the machine's share ("), "{out}");
    if da == 0 {
        assert!(out.contains("no α clear of its noise"), "{out}");
    }
    let out = stdout(&s.toll(&["show", "3"]));
    assert!(out.contains("run to run: σ(α) = "), "{out}");
    assert!(out.contains("from 2 earlier runs of this series"), "{out}");
    assert!(out.contains("(3 degrees of freedom: Student's t"), "{out}");
}

#[test]
fn a_run_into_a_new_store_learns_from_the_machines_record_of_runs() {
    let stores: Vec<Scratch> = ["a", "b", "c"]
        .iter()
        .map(|n| Scratch::new(&format!("record-{n}")))
        .collect();
    let record = stores[0].0.join("runs-here.jsonl");
    let record = record.to_str().unwrap();
    let mut args = vec![
        "transfer",
        "--sizes",
        "0,1000,4000",
        "--via",
        "pipe",
        "--pin",
        "same",
    ];
    args.extend_from_slice(QUICK);
    for s in &stores {
        let o = s.toll_env(&args, &[("TOLL_RUN_RECORD", record)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // Each store holds one run; the third learnt from the other two.
    let r = &export_json(&stores[2], "last")["series"][0]["fit"]["run_to_run"];
    assert_eq!(
        (&r["source"], &r["earlier_runs"], &r["elsewhere"]),
        (&"history".into(), &2.into(), &2.into()),
        "{r}"
    );
    let out = stdout(&stores[2].toll(&["show", "last"]));
    assert!(
        out.contains("2 earlier runs of this series on this machine (in other stores"),
        "{out}"
    );
    // A run remembers itself only once it is complete, and never learns
    // from itself: the first store's run had nothing to learn from.
    let r = &export_json(&stores[0], "last")["series"][0]["fit"]["run_to_run"];
    assert_eq!(r["source"], "floor", "{r}");
    // Switched off, a new store learns nothing.
    let off = Scratch::new("record-off");
    let o = off.toll_env(&args, &[("TOLL_RUN_RECORD", "off")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = &export_json(&off, "last")["series"][0]["fit"]["run_to_run"];
    assert_eq!(
        (&r["source"], &r["earlier_runs"]),
        (&"floor".into(), &0.into()),
        "{r}"
    );
    // Three lines: one series of three complete runs.
    assert_eq!(std::fs::read_to_string(record).unwrap().lines().count(), 3);
}
