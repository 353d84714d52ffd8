//! What `toll http`, its agents and `toll http compare` share: the load
//! from their common flags, the stop flag, the send-lag warning, the
//! printed or JSON run and the `--plot` target and picture. A leaf: it
//! imports none of the commands that use it.

use crate::args::{IoArg, LoadArgs, LoadPlotArgs, PickArg};
use crate::usage::usage;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use toll_families::http::request::RequestSpec;
use toll_families::http::urls::{self, Pick, UrlLine, UrlSet};
use toll_families::http::{self, HttpConfig, HttpError, Target};
use toll_report::plot::{LoadCharts, Scale};

/// --coalesce when not given (10 µs while answers come without the
/// kernel's arrival stamps).
const DEFAULT_COALESCE: Duration = Duration::from_micros(100);

/// A p99 send lag (ms) past which the corrected latencies say as much about
/// toll as about the server.
const LAG_WARNING_MS: f64 = 1.0;

/// The validated load against `url`, from the flags `toll http` and `toll
/// http compare` share; `--unix-socket`, once at most, is its socket,
/// checked here unless it is on the load agents' hosts (`here` false).
pub fn config(url: &str, a: &LoadArgs, here: bool) -> anyhow::Result<HttpConfig> {
    let unix = match a.unix_socket.as_slice() {
        [] => None,
        [one] => Some(PathBuf::from(one)),
        [..] => return Err(usage(
            "--unix-socket is given more than once: toll http loads one server, through one socket",
        )),
    };
    let cfg = config_via(url, a, unix.as_deref())?;
    if let (Some(p), true) = (&unix, here) {
        unix_socket(p)?;
    }
    Ok(cfg)
}

/// `--unix-socket PATH` checked before anything is sent: a socket that is
/// there (a missing path or a file that is not a socket is one line).
pub fn unix_socket(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let text = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_socket() => Ok(()),
        Ok(_) => Err(usage(format!(
            "--unix-socket {text} is not a socket: give the path the server listens on"
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(usage(format!(
            "--unix-socket {text}: no such socket: start the server listening there, or give the path it listens on"
        ))),
        Err(e) => Err(usage(format!(
            "--unix-socket {text}: cannot reach it ({e}): give a socket you may open"
        ))),
    }
}

/// [`config`], its connections to the unix socket `unix` when given.
pub fn config_via(url: &str, a: &LoadArgs, unix: Option<&Path>) -> anyhow::Result<HttpConfig> {
    let target = Target::resolve_via(url, unix).map_err(|e| match e {
        HttpError::BadUrl { .. } | HttpError::Unsupported(_) => usage(e.to_string()),
        other => other.into(),
    })?;
    let concurrency = a.concurrency;
    let time_limit = match (a.time_limit, a.duration) {
        (Some(_), Some(_)) => return Err(usage("give -t or --duration, not both")),
        (t, d) => t.or(d),
    };
    let requests = match a.requests {
        Some(n) => Some(n),
        // ab: -t implies -n 50000; --duration (wrk) runs until the time is up.
        None if a.time_limit.is_some() => Some(50_000),
        None if a.duration.is_some() => None,
        None => Some(1),
    };
    if let Some(n) = requests {
        if (concurrency as u64) > n {
            return Err(usage(format!(
                "-c {concurrency} is more than the {n} requests of -n: lower -c or raise -n"
            )));
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = a.threads.unwrap_or(cpus).min(concurrency);
    let rate = a.rate;
    let streams = a.streams.unwrap_or(1);
    if streams > 1 && !a.keep_alive {
        return Err(usage(
            "--streams above 1 shares connections: add -k to keep them alive",
        ));
    }
    let body = match &a.post_file {
        Some(p) => Some(std::fs::read(p).map_err(|e| {
            usage(format!(
                "-p {}: cannot read the body file: {e}",
                p.display()
            ))
        })?),
        None => None,
    };
    let spin = a.spin.unwrap_or(Duration::ZERO);
    if !spin.is_zero() && (target.tls || a.http2) {
        return Err(usage(
            "--spin works on plain HTTP/1.1 (http:// without --http2): drop it",
        ));
    }
    let coalesce = coalesce(a, rate.is_some(), spin)?;
    let io =
        match a.io {
            None => match std::env::var("TOLL_HTTP_IO").as_deref() {
                Ok("io_uring" | "epoll" | "") | Err(std::env::VarError::NotPresent) => {
                    http::Io::from_env()
                }
                Ok(other) => {
                    return Err(usage(format!(
                        "TOLL_HTTP_IO={other}: give io_uring or epoll, or unset it"
                    )))
                }
                Err(_) => {
                    return Err(usage(
                        "TOLL_HTTP_IO is not valid text: give io_uring or epoll",
                    ))
                }
            },
            Some(IoArg::Epoll) => http::Io::Epoll,
            Some(IoArg::IoUring) if target.tls || a.http2 => {
                return Err(usage(
                    "--io io_uring is for plain HTTP/1.1 (http:// without --http2): drop it",
                ))
            }
            Some(IoArg::IoUring) if unix.is_some() => return Err(usage(
                "--io io_uring connects over TCP: drop it to load through --unix-socket (on epoll)",
            )),
            Some(IoArg::IoUring) if rate.is_some() || !spin.is_zero() => {
                return Err(usage(
                    "--io io_uring runs a closed loop (without --rate or --spin): drop one of them",
                ))
            }
            Some(IoArg::IoUring) => http::Io::IoUring,
        };
    if a.content_type.is_some() && body.is_none() {
        return Err(usage("-T sets the body's type: give the body with -p FILE"));
    }
    Ok(HttpConfig {
        target,
        spec: RequestSpec {
            method: a.method.clone(),
            headers: a.headers.clone(),
            body,
            content_type: a.content_type.clone(),
            keep_alive: a.keep_alive,
        },
        concurrency,
        requests,
        time_limit,
        threads,
        timeout: a.timeout,
        variable_length: a.variable_length,
        rate,
        http2: a.http2,
        streams,
        insecure: a.insecure,
        spin,
        coalesce,
        io,
        urls: None,
    })
}

/// --coalesce: 100 µs unless given; off where naps do not apply, and an
/// error where the user asked for them there.
fn coalesce(a: &LoadArgs, rate: bool, spin: Duration) -> anyhow::Result<Duration> {
    let applies = !rate && spin.is_zero();
    let Some(d) = a.coalesce else {
        return Ok(if applies {
            DEFAULT_COALESCE
        } else {
            Duration::ZERO
        });
    };
    if d.is_zero() {
        return Ok(Duration::ZERO);
    }
    if !applies {
        return Err(usage(
            "--coalesce works without --rate or --spin (a closed loop that sleeps between answers): drop it",
        ));
    }
    Ok(d)
}

/// Set by Ctrl-C; a second Ctrl-C exits at once.
pub fn stop_flag() -> Arc<AtomicBool> {
    crate::stop::shared()
}

/// At a constant rate, a warning when toll (or its agents) sent late.
pub(super) fn warn_lag(report: &toll_report::http::HttpReport) {
    if let Some(lag) = report.send_lag.as_ref().filter(|l| l.p99 >= LAG_WARNING_MS) {
        crate::tell!(
            "warning: toll ran behind its own schedule (send lag p99 {:.3} ms, max {:.3} ms), and the corrected latencies include that delay: give it more --threads, a lower --rate, or a quieter machine",
            lag.p99, lag.max
        );
    }
}

/// The stored run as JSON, or the title, the report and where it is stored.
pub fn print_run(
    store: &toll_store::Store,
    run_id: i64,
    json: bool,
    title: &str,
    report: &str,
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = crate::screen::output(json);
    if json {
        let run = store.load_run(run_id)?;
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)?;
    } else {
        writeln!(out, "{title}\n")?;
        write!(out, "{report}")?;
        let status = store.load_run(run_id)?.status;
        writeln!(out, "\n{}", super::db::stored_line(store, run_id, status))?;
    }
    Ok(())
}

/// `--plot FILE.svg` checked before anything is measured: the scale, and
/// a file that can be written where it names (a missing directory or a
/// read-only one is found now, not after the load).
pub fn plot_target(a: &LoadPlotArgs) -> anyhow::Result<Option<(PathBuf, Scale)>> {
    let Some(path) = &a.plot else {
        return Ok(None);
    };
    let scale: Scale = a.plot_scale.parse().map_err(usage)?;
    let shown = path.display();
    if path.is_dir() {
        return Err(usage(format!(
            "--plot {shown} is a directory: give a file such as {shown}/load.svg"
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(usage(format!(
            "--plot {shown}: no directory {} to write it in: create it, or give another path",
            dir.display()
        )));
    }
    // The plot is written through a temporary file in that directory: try one.
    let probe = dir.join(format!(".toll-plot-check.{}.tmp", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => {
            return Err(usage(format!(
                "--plot {shown}: cannot write in {} ({e}): give a path you can write",
                dir.display()
            )))
        }
    }
    Ok(Some((path.clone(), scale)))
}

/// Draw stored run `run_id`'s load pictures to `path`, and say so.
pub fn draw(
    store: &toll_store::Store,
    run_id: i64,
    path: &Path,
    scale: Scale,
) -> anyhow::Result<()> {
    let run = store.load_run(run_id)?;
    let charts = LoadCharts::for_run(&run)
        .ok_or_else(|| anyhow::anyhow!("run {run_id} is not an http load"))?;
    charts
        .write(path, scale)
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
    eprintln!("plot written to {}", path.display());
    Ok(())
}

/// `--urls FILE` (with `--pick` and `--seed`): the file read and parsed,
/// every line's URL on one server; a bad line is one error naming its
/// number. None without --urls (then --pick and --seed are refused).
pub fn url_lines(
    file: Option<&Path>,
    pick: Option<PickArg>,
    seed: Option<u64>,
) -> anyhow::Result<Option<(Vec<UrlLine>, Pick)>> {
    let Some(file) = file else {
        if pick.is_some() || seed.is_some() {
            return Err(usage(
                "--pick and --seed choose among the lines of a URL file: add --urls FILE",
            ));
        }
        return Ok(None);
    };
    let pick = match (pick, seed) {
        (Some(PickArg::Random), seed) => Pick::Random(seed.unwrap_or(1)),
        (_, Some(_)) => {
            return Err(usage(
                "--seed orders --pick random: add --pick random, or drop --seed",
            ))
        }
        (_, None) => Pick::RoundRobin,
    };
    let shown = file.display();
    let text = std::fs::read_to_string(file).map_err(|e| {
        usage(format!(
            "--urls {shown}: cannot read it ({e}): give a file of requests, one a line"
        ))
    })?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let lines = urls::parse(&text, dir).map_err(|e| usage(format!("--urls {shown}: {e}")))?;
    if lines.is_empty() {
        return Err(usage(format!(
            "--urls {shown} has no request: write one a line, `[METHOD] URL [@BODYFILE]`"
        )));
    }
    Ok(Some((lines, pick)))
}

/// The load's config from a URL file's `lines`: its first line's server,
/// every line's request.
pub fn config_of_lines(
    file: &Path,
    lines: Vec<UrlLine>,
    pick: Pick,
    a: &LoadArgs,
) -> anyhow::Result<HttpConfig> {
    if a.io == Some(IoArg::IoUring) {
        return Err(usage(
            "--io io_uring sends one request over and over: drop it to load a URL file (on epoll)",
        ));
    }
    let mut cfg = config(&lines[0].url, a, true)?;
    let set = UrlSet::new(lines, &cfg.spec, pick)
        .map_err(|e| usage(format!("--urls {}: {e}", file.display())))?;
    cfg.spec = set.entries[0].2.clone();
    cfg.urls = Some(set);
    Ok(cfg)
}
