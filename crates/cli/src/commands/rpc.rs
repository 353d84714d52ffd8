//! `toll rpc` (E3): validate the arguments, start the server, run the
//! rounds, print E3's figure (the mean time per call with its CI) beside
//! the median, p99, calls/s and each side's CPU per call; for the ladder,
//! each row's cost over the row below it, as a difference of two means
//! with its CI.

use super::db;
use crate::args::RpcArgs;
use crate::progress::Progress;
use crate::usage::usage;
use crate::values::list;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_families::rpc::{
    self as family, Lookup, Mode, PathKind, ProxyKind, RpcConfig, SeriesSpec, Stack, Via,
};
use toll_store::RunStatus;

/// `toll rpc`.
pub fn run(args: RpcArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    super::design_note(
        "--trials",
        cfg.trials as usize,
        "--sizes",
        Some(cfg.sizes.len()),
    );
    if dry_run {
        if let Some(p) = db {
            db::check_name(p)?;
        }
        // Written, not println!'d: `toll rpc --dry-run | head` is no panic.
        let mut out = crate::screen::stdout();
        writeln!(
            out,
            "would time {} series against the {} server, {} trials of {} calls at {} B:",
            cfg.series.len(),
            cfg.runtime,
            cfg.trials,
            cfg.calls,
            sizes_text(&cfg.sizes)
        )?;
        for s in &cfg.series {
            writeln!(out, "  {}", cfg.label(s))?;
        }
        let wanted: Vec<super::estimate::Wanted> = cfg
            .series
            .iter()
            .map(|s| super::estimate::Wanted {
                label: cfg.label(s),
                ns: cfg.sizes.iter().map(|&n| u64::from(n)).collect(),
                trials: cfg.trials,
            })
            .collect();
        let ceiling = format!(
            "each trial is {} calls, and a call not answered within {} ends the run",
            cfg.calls,
            crate::values::about(cfg.timeout)
        );
        writeln!(
            out,
            "{}",
            super::estimate::line(db, "rpc", &wanted, &ceiling)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    measure(cfg, &args, db)
}

fn config(a: &RpcArgs) -> anyhow::Result<RpcConfig> {
    let ladder = a.stack.is_none() && a.via.is_none() && a.path.is_none() && a.mode.is_none();
    let in_flight = a.in_flight;
    let lookup = a.lookup;
    let far = super::far::parse(
        a.remote.as_deref(),
        a.remote_cmd.as_deref(),
        None,
        a.link.as_deref(),
    )?;
    let series = if ladder {
        let mut all = ladder_series(in_flight);
        // A unix socket does not cross a link or reach a far host.
        if far.is_some() {
            all.retain(|s| s.via == Via::Tcp);
        }
        all
    } else {
        let stacks = match a.stack.as_deref().unwrap_or("all").trim() {
            "all" => Stack::ALL.to_vec(),
            text => list(text, "--stack")?
                .into_iter()
                .map(|s| {
                    Stack::parse(s).ok_or_else(|| {
                        usage(format!(
                            "unknown stack `{s}` in --stack: give raw, http1, h2, grpc or all"
                        ))
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        };
        let via = match a.via.as_deref().map(str::trim) {
            None | Some("tcp") => Via::Tcp,
            Some("unix") if stacks.iter().all(|&s| s == Stack::Raw) => Via::Unix,
            Some("unix") => {
                return Err(usage(
                    "--via unix is for --stack raw only: the HTTP and gRPC stacks run over tcp",
                ))
            }
            Some(other) => return Err(usage(format!("--via `{other}`: give tcp or unix"))),
        };
        let mut paths = vec![];
        for p in list(a.path.as_deref().unwrap_or("direct"), "--path")? {
            paths.push(match p {
                "direct" => PathKind::Direct,
                "broker" => PathKind::Broker(lookup),
                "haproxy" => PathKind::Proxy(ProxyKind::Haproxy),
                "nginx" => PathKind::Proxy(ProxyKind::Nginx),
                other => {
                    return Err(usage(format!(
                        "unknown path `{other}` in --path: give direct, broker, haproxy or nginx"
                    )))
                }
            });
        }
        if via == Via::Unix && far.is_some() {
            return Err(usage(
                "--via unix stays on this machine: drop it, or drop --link/--remote",
            ));
        }
        if via == Via::Unix && paths.iter().any(|p| *p != PathKind::Direct) {
            return Err(usage(
                "--via unix goes direct only: the broker and proxies hand out tcp addresses",
            ));
        }
        let mut modes = vec![];
        for m in list(a.mode.as_deref().unwrap_or("blocking"), "--mode")? {
            modes.push(match m {
                "blocking" => Mode::Blocking,
                "pipelined" => Mode::Pipelined(in_flight),
                other => {
                    return Err(usage(format!(
                        "unknown mode `{other}` in --mode: give blocking, pipelined or both (blocking,pipelined)"
                    )))
                }
            });
        }
        let mut out = vec![];
        for &mode in &modes {
            for &path in &paths {
                for &stack in &stacks {
                    out.push(SeriesSpec {
                        stack,
                        via,
                        path,
                        mode,
                    });
                }
            }
        }
        out
    };
    let external = match a.server {
        None => None,
        Some(addr) => {
            let one = series.len() == 1
                || series
                    .iter()
                    .all(|s| s.stack == series[0].stack && s.via == Via::Tcp);
            if ladder || !one || series.iter().any(|s| s.path != PathKind::Direct) {
                return Err(usage(
                    "--server calls one server: give one --stack (and no --path but direct)",
                ));
            }
            Some(addr)
        }
    };
    Ok(RpcConfig {
        runtime: a.runtime,
        external,
        series,
        connections: a.connections,
        sizes: a.sizes.clone(),
        calls: a.calls,
        trials: a.trials,
        warmup: a.warmup,
        timeout: a.timeout,
        seed: a.seed,
        ladder,
        far,
    })
}

/// E3's table: each layer on the one below, blocking then pipelined.
fn ladder_series(in_flight: u32) -> Vec<SeriesSpec> {
    let mut out = vec![];
    for mode in [Mode::Blocking, Mode::Pipelined(in_flight)] {
        let s = |stack, via, path| SeriesSpec {
            stack,
            via,
            path,
            mode,
        };
        out.push(s(Stack::Raw, Via::Unix, PathKind::Direct));
        out.push(s(Stack::Raw, Via::Tcp, PathKind::Direct));
        out.push(s(Stack::Http1, Via::Tcp, PathKind::Direct));
        out.push(s(Stack::H2, Via::Tcp, PathKind::Direct));
        out.push(s(Stack::Grpc, Via::Tcp, PathKind::Direct));
        out.push(s(Stack::Grpc, Via::Tcp, PathKind::Broker(Lookup::PerCall)));
    }
    out
}

fn sizes_text(sizes: &[u32]) -> String {
    sizes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn measure(cfg: RpcConfig, a: &RpcArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open(db)?;
    crate::stop::install();
    let cells = cfg.series.len() * cfg.sizes.len();
    let mut progress = Progress::new((cells * cfg.trials as usize) as u64);
    let outcome = family::run(&cfg, &store, &mut progress, &crate::stop::STOP);
    progress.finish();
    let outcome = outcome?;
    if let Some(code) = super::stopped_before_measuring(&store, outcome.run_id)? {
        return Ok(code);
    }
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(
            out,
            "{}",
            toll_report::rpc::render(&family::report::view(&cfg, &outcome))
        )
        .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &a.plot {
        let chart = toll_report::plot::Chart::for_run(&run);
        super::plot::draw(path, chart, &a.scale.plot_scale)?;
    }
    match (&outcome.error, outcome.status) {
        (_, RunStatus::Partial) if crate::stop::stopped() => {
            crate::tell!("interrupted: run {} stored as partial", outcome.run_id);
            Ok(crate::stop::exit_code())
        }
        (Some(e), status) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} (`toll show {}`)",
            outcome.run_id,
            status.as_str(),
            outcome.run_id
        )),
        (None, _) => Ok(ExitCode::SUCCESS),
    }
}
