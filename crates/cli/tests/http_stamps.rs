//! `toll http`'s HTTP/1.1 loop with and without the kernel's arrival
//! stamps (`TOLL_HTTP_STAMPS_REFUSED=1` acts as a kernel that refuses
//! them): the same requests counted the same way, with and without
//! keep-alive, and toll's own CPU during the load in the report.

mod common;
use common::nginx;
use common::*;
use serde_json::Value;

fn report(s: &Scratch) -> Value {
    let run = export_json(s, "last");
    assert_eq!(run["family"], "http");
    run["series"][0]["points"][0]["extra"]["report"].clone()
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
