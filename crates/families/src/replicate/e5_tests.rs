//! E5's rows and findings, checked on made-up loads.

use super::*;
use findings::Verdict;

#[test]
fn every_preset_starts_with_the_trap_and_keeps_e5s_rows() {
    for p in [Preset::Full, Preset::Quick, Preset::Test] {
        let k = kinds(p);
        assert_eq!(k[0], TRAP, "{p:?}");
        for must in [TUNED, Kind::Tomcat, Kind::Nginx] {
            assert!(k.contains(&must), "{p:?} lacks {must:?}");
        }
    }
    assert_eq!(kinds(Preset::Full).len(), 11);
    assert!(kinds(Preset::Quick).contains(&WORKER));
    let mut labels: Vec<String> = every_kind().iter().map(|k| k.label()).collect();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), 11, "labels are unique");
}

/// A gain from warm-up rates and warm ones.
fn gain(warmup: &[f64], warm: &[f64]) -> Result<Figure, String> {
    warmup_gain(warmup, warm)
}

fn warmup(tomcat: Result<Figure, String>, nginx: Result<Figure, String>) -> Finding {
    warmup_finding(&Warmup {
        tomcat,
        reference: nginx,
        label: "nginx".into(),
    })
}

const WARM: [f64; 5] = [800.0, 810.0, 795.0, 805.0, 800.0];

#[test]
fn the_jvm_warms_up_only_beyond_what_nginx_gains() {
    let nginx = gain(&[950.0, 960.0, 955.0], &[960.0, 955.0, 965.0, 958.0, 962.0]);
    // E5's JVM: 4× slower for its first rounds.
    let jvm = gain(&[200.0, 210.0, 220.0, 500.0, 790.0, 800.0], &WARM);
    let w = warmup(jvm, nginx.clone());
    assert_eq!(w.verdict, Verdict::Holds, "{}", w.text);
    assert!(
        w.text
            .contains("first 3 warm-up rounds', over the same of nginx")
            && w.text.contains("E5: Tomcat's gain 4× (5–6 runs to warm)"),
        "{}",
        w.text
    );
    // Settled from its first round: no more gain than nginx's.
    let settled = gain(&[790.0, 800.0, 805.0], &WARM);
    let w = warmup(settled, nginx);
    assert_eq!(w.verdict, Verdict::NoLongerHolds, "{}", w.text);
}

#[test]
fn a_cold_first_round_of_every_server_is_not_the_jvms_warm_up() {
    // Both servers' first rounds at half their warm rate (cold files and
    // caches): Tomcat's warm rate ÷ its first round alone would read 2×.
    let jvm = gain(&[400.0, 405.0, 410.0], &WARM);
    let nginx = gain(&[480.0, 485.0, 490.0], &[960.0, 970.0, 965.0, 968.0, 962.0]);
    assert!(jvm.as_ref().unwrap().lo > 1.5);
    let w = warmup(jvm, nginx);
    assert_eq!(w.verdict, Verdict::NoLongerHolds, "{}", w.text);
}

#[test]
fn a_gain_needs_two_first_rounds_and_a_warm_one() {
    assert!(gain(&[400.0], &WARM).unwrap_err().contains("at least 2"));
    assert!(gain(&[400.0, 410.0], &[]).is_err());
    let w = warmup(Err("not installed".into()), gain(&[1.0, 1.0], &[1.0]));
    assert_eq!(w.verdict, Verdict::NotChecked);
    assert!(w.text.contains("tomcat: not installed"), "{}", w.text);
}

#[test]
fn the_tail_is_e5s_p99_over_p50_not_one_p99_over_another() {
    let tuned = ([20.0; 5], [40.0; 5]);
    let trap_tail = (
        [26.0, 25.0, 27.0, 26.0, 26.0],
        [531.0, 500.0, 560.0, 520.0, 540.0],
    );
    let f = tail_finding(e5_server_load::tail_ratio(
        (&tuned.0, &tuned.1),
        (&trap_tail.0, &trap_tail.1),
    ));
    assert_eq!(f.verdict, Verdict::Holds, "{}", f.text);
    assert!(
        f.text
            .contains("E5: p99 ÷ p50 of the recycling Apache 1.3 20.4× (531 ms ÷ 26 ms)"),
        "{}",
        f.text
    );
    // Slower all over, its p99 twice the tuned one's, but no longer a
    // tail: p99 ÷ p50 below the tuned server's.
    let slower = (
        [40.0, 42.0, 41.0, 40.0, 43.0],
        [76.0, 78.0, 77.0, 72.0, 80.0],
    );
    let f = tail_finding(e5_server_load::tail_ratio(
        (&tuned.0, &tuned.1),
        (&slower.0, &slower.1),
    ));
    assert_eq!(f.verdict, Verdict::NoLongerHolds, "{}", f.text);
}

#[test]
fn every_lesson_quotes_the_originals_even_unmeasured() {
    let mut r = Report::new(Experiment::E5, String::new());
    let compared = Compared {
        rounds: Err("not run".into()),
        run: None,
    };
    let none = |_: Kind| -> Result<usize, String> { Err("not started".into()) };
    let w = Warmup {
        tomcat: Err("not started".into()),
        reference: Err("not started".into()),
        label: "nginx".into(),
    };
    findings(&mut r, &compared, &none, w);
    let text = |words: &str| {
        r.findings
            .iter()
            .find(|f| f.text.contains(words))
            .map(|f| f.text.clone())
            .expect("the finding")
    };
    assert!(
        text("matches Tomcat").contains("E5: 0.996× (681.01 req/s ÷ 683.48 req/s)"),
        "{}",
        text("matches Tomcat")
    );
    assert!(text("long tail").contains("20.4× (531 ms ÷ 26 ms)"));
    assert!(r.findings.iter().all(|f| f.verdict == Verdict::NotChecked));
}
