//! `toll http`'s HTTP/1.1 loop with and without the kernel's arrival
//! stamps (`TOLL_HTTP_STAMPS_REFUSED=1` acts as a kernel that refuses
//! them): the same requests counted the same way, with and without
//! keep-alive, and toll's own CPU during the load in the report; and the
//! same for the tokio loop (HTTP/2 over h2c and TLS, HTTP/1.1 over TLS),
//! which stamps by the connection's last read and naps in the runtime's
//! park hook.

mod common;
use common::nginx;
use common::*;
use serde_json::Value;

fn report(s: &Scratch) -> Value {
    let run = export_json(s, "last");
    assert_eq!(run["family"], "http");
    run["series"][0]["points"][0]["extra"]["report"].clone()
}

/// The checks every run here passes: counts, rising percentiles, and no
/// answer ending before its request was written.
fn counted(s: &Scratch, n: u64, what: &str) {
    let r = report(s);
    assert_eq!(r["complete_requests"], n, "{what}");
    assert_eq!(r["failed_requests"], 0, "{what}");
    assert_eq!(r["html_transferred"], n * 92, "{what}");
    let p: Vec<f64> = r["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[1].as_f64().unwrap())
        .collect();
    assert!(p[0] > 0.0, "{what}: {p:?}");
    assert!(p.windows(2).all(|w| w[0] <= w[1]), "{what}: {p:?}");
    let (waiting, total) = (&r["waiting"], &r["total"]);
    assert!(waiting["min"].as_f64().unwrap() >= 0.0, "{what}");
    assert!(
        waiting["mean"].as_f64().unwrap() <= total["mean"].as_f64().unwrap(),
        "{what}: {waiting} {total}"
    );
}

#[test]
fn http2_and_tls_answers_stamped_or_not_are_counted_alike() {
    let s = Scratch::new("http-stamps-tokio");
    let server = nginx::start(&s, &["http2", "ssl http2", "ssl"]);
    let h2c = format!("http://127.0.0.1:{}/hello.html", server.ports[0]);
    let h2 = format!("https://127.0.0.1:{}/hello.html", server.ports[1]);
    let h1s = format!("https://127.0.0.1:{}/hello.html", server.ports[2]);
    for refused in [false, true] {
        let env: &[(&str, &str)] = if refused {
            &[("TOLL_HTTP_STAMPS_REFUSED", "1")]
        } else {
            &[]
        };
        let runs: [(&str, &[&str]); 4] = [
            ("h2c", &["--http2", "--streams", "4", &h2c]),
            (
                "h2c, no naps",
                &["--http2", "--streams", "4", "--coalesce", "0", &h2c],
            ),
            (
                "h2 over TLS",
                &["--http2", "--streams", "4", "--insecure", &h2],
            ),
            ("HTTP/1.1 over TLS", &["--insecure", &h1s]),
        ];
        for (name, extra) in runs {
            let mut args = vec!["http", "-n", "2000", "-c", "8", "-k"];
            args.extend_from_slice(extra);
            let o = s.toll_env(&args, env);
            let what = format!("{name}, refused {refused}");
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            counted(&s, 2000, &what);
            let run = export_json(&s, "last");
            let naps = if name.contains("no naps") { 0 } else { 100_000 };
            assert_eq!(run["config"]["coalesce_ns"], naps, "{what}");
        }
    }
}

#[test]
fn stamped_and_unstamped_answers_are_counted_alike() {
    let s = Scratch::new("http-stamps");
    let server = nginx::start(&s, &[""]);
    let url = format!("http://127.0.0.1:{}/hello.html", server.port());
    for refused in [false, true] {
        let env: &[(&str, &str)] = if refused {
            &[("TOLL_HTTP_STAMPS_REFUSED", "1")]
        } else {
            &[]
        };
        for (keep, n) in [(true, 3000u64), (false, 600)] {
            let mut args = vec!["http", "-n", if keep { "3000" } else { "600" }, "-c", "6"];
            if keep {
                args.push("-k");
            }
            args.push(&url);
            let o = s.toll_env(&args, env);
            assert!(o.status.success(), "{}", stderr(&o));
            let text = stdout(&o);
            assert!(text.contains("toll's own CPU:"), "{text}");
            let r = report(&s);
            let what = format!("refused {refused}, keep-alive {keep}");
            assert_eq!(r["complete_requests"], n, "{what}");
            assert_eq!(r["failed_requests"], 0, "{what}");
            assert_eq!(r["html_transferred"], n * 92, "{what}");
            assert_eq!(r["keep_alive_requests"], if keep { n } else { 0 }, "{what}");
            let cpu = r["generator_cpu_s"].as_f64().expect("toll's CPU is kept");
            assert!(cpu > 0.0, "{what}: {cpu}");
            let p: Vec<f64> = r["percentiles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x[1].as_f64().unwrap())
                .collect();
            assert!(p[0] > 0.0, "{what}: {p:?}");
            assert!(p.windows(2).all(|w| w[0] <= w[1]), "{what}: {p:?}");
            // The answer's end is never before its request was written.
            let (waiting, total) = (&r["waiting"], &r["total"]);
            assert!(waiting["min"].as_f64().unwrap() >= 0.0, "{what}");
            assert!(
                waiting["mean"].as_f64().unwrap() <= total["mean"].as_f64().unwrap(),
                "{what}: {waiting} {total}"
            );
        }
    }
}
