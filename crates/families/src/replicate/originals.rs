//! The seed experiments' published figures, as docs/EXPERIMENTS.md records
//! them (the "Published figures" of E1–E5; E3's were charts only). Every
//! figure here is the original's; nothing measured is ever written here.
//! Where the seed gave a range (Erlang's spawn: 4.2–6.9 µs), the ratio is
//! taken against its middle and the cell shows the range as published.

/// One published figure, in the unit of the row it sits in.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Original {
    /// The figure the ratio is taken against.
    pub value: f64,
    /// As published, when that differs from `value` alone (a range, a total).
    pub text: &'static str,
}

const fn fig(value: f64, text: &'static str) -> Original {
    Original { value, text }
}

/// Where the figures come from.
pub const SOURCE: &str = "docs/EXPERIMENTS.md, \"Published figures\" of E1–E5";

// E1: the MathLink transfer-time page (~1999–2004). One fit:
// t(n) = 0.000453985 + 0.0000222055·n seconds.
/// E1's fixed cost α, µs.
pub const E1_ALPHA_US: Original = fig(453.985, "453.985 µs (a = 0.000453985 s)");
/// E1's cost per integer β, ns.
pub const E1_BETA_NS: Original = fig(22_205.5, "22205.5 ns (b = 0.0000222055 s)");
/// E1's fit at n = 100000, ms: a + b·100000.
pub const E1_T100K_MS: Original = fig(2_221.004, "2221 ms (the fit at 100000)");
/// Linux: "Pipe 16x faster than TCP".
pub const E1_PIPE_OVER_TCP: f64 = 16.0;
/// Windows 95: "TCP 5x slower than FileMap" (shared memory).
pub const E1_SHM_OVER_TCP: f64 = 5.0;

// E2: Erlang vs Squeak vs Haskell, 1.2 GHz Pentium M, Windows XP (2007).
/// Erlang spawn, µs per process, wall: 4.2–6.9, flat from N = 5000 to 200000.
pub const E2_ERLANG_SPAWN_US: Original = fig(5.55, "4.2–6.9 µs wall");
/// Squeak spawn, µs per process, by N (`[…] fork`); hangs beyond 60000.
pub const E2_SQUEAK_SPAWN_US: [(u64, Original); 4] = [
    (20_000, fig(4.5, "4–5 µs")),
    (30_000, fig(32.9, "32.9 µs")),
    (40_000, fig(64.7, "64.7 µs")),
    (60_000, fig(92.8, "92.8 µs")),
];
/// Erlang ring, M = 1000: ns per hop from total wall ms / (N·M).
pub const E2_ERLANG_RING_NS: [(u64, Original); 3] = [
    (100, fig(620.0, "62 ms (620 ns/hop)")),
    (1_000, fig(469.0, "469 ms wall (469 ns/hop)")),
    (10_000, fig(754.7, "7547 ms wall (755 ns/hop)")),
];
/// Squeak ring (mailbox polling + yield), M = 1000, ns per hop.
pub const E2_SQUEAK_RING_NS: [(u64, Original); 3] = [
    (100, fig(7_140.0, "714 ms (7140 ns/hop)")),
    (1_000, fig(7_369.0, "7369 ms (7369 ns/hop)")),
    (2_000, fig(8_446.0, "16892 ms (8446 ns/hop)")),
];
/// Haskell ring 1000 × 1000: "just under 30 s", ns per hop.
pub const E2_HASKELL_RING_NS: Original = fig(30_000.0, "just under 30 s (≈30000 ns/hop)");

// E4: Python 2.6.6, Linux, SSD (2010); caches dropped before every test.
/// Sequential pass over 100,000,000 bytes, ms: file, mmap read, mmap slice.
pub const E4_SEQ_MS: [Original; 3] = [
    fig(501.0, "501 ms"),
    fig(492.0, "492 ms"),
    fig(169.0, "169 ms"),
];
/// Random 450-byte reads, µs per read: file, mmap read, mmap slice.
pub const E4_RANDOM_US: [Original; 3] = [
    fig(18.1, "18.1 µs"),
    fig(10.8, "10.8 µs"),
    fig(10.3, "10.3 µs"),
];

// E5: Pentium III 600 MHz (2004).
/// 92-byte page, `ab -c 20 -n 10000`, req/s.
pub const E5_APACHE13_DEFAULT_RPS: Original = fig(525.73, "525.73 req/s");
pub const E5_TOMCAT_RPS: Original = fig(681.01, "681.01 req/s");
pub const E5_APACHE13_TUNED_RPS: Original = fig(683.48, "683.48 req/s");
/// Tuned Apache and Tomcat over Debian's recycling Apache, 92 B.
pub const E5_TUNED_OVER_TRAP: Original = fig(683.48 / 525.73, "1.30× (683.48 ÷ 525.73)");
pub const E5_TOMCAT_OVER_TRAP: Original = fig(681.01 / 525.73, "1.30× (681.01 ÷ 525.73)");
/// Tomcat once warm over its first runs ("4x slower before").
pub const E5_JVM_WARMUP: Original = fig(4.0, "4× (5–6 runs to warm)");
/// Apache 1.3 default, 92 B: p50 and p99, ms.
pub const E5_APACHE13_P50_MS: Original = fig(26.0, "26 ms");
pub const E5_APACHE13_P99_MS: Original = fig(531.0, "531 ms");
/// Its tail, p99 ÷ p50, from the two above.
pub const E5_APACHE13_TAIL: Original = fig(
    E5_APACHE13_P99_MS.value / E5_APACHE13_P50_MS.value,
    "20.4× (531 ms ÷ 26 ms)",
);
/// 1 MiB file, `ab -c 20 -n 1000`, Apache 2.0.49 worker: req/s and KB/s.
pub const E5_APACHE2_BIG_RPS: Original = fig(130.40, "130.40 req/s");
pub const E5_APACHE2_BIG_KBS: Original = fig(136_765.0, "136765 KB/s");
/// The loop of 10^8 iterations, s, `time` (start-up included).
pub const E5_LOOP_GCC_S: Original = fig(19.6, "19.6 s");
pub const E5_LOOP_ICC_S: Original = fig(13.6, "13.6 s");
pub const E5_LOOP_JAVA_SERVER_S: Original = fig(7.5, "7.5 s");
pub const E5_LOOP_JAVA_CLIENT_S: Original = fig(58.0, "58 s");
pub const E5_LOOP_IBM_S: Original = fig(56.0, "56 s");
/// The loop with `*6` and `/3` instead of `*4` and `/2`, s, `time`.
pub const E5_LOOP63_ICC_S: Original = fig(31.5, "31.5 s");
pub const E5_LOOP63_JAVA_SERVER_S: Original = fig(32.5, "32.5 s");
/// E5's loop length.
pub const E5_LOOP_N: u64 = 100_000_000;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replicate::findings::times;

    #[test]
    fn a_derived_figure_reads_as_its_value() {
        for o in [E5_TUNED_OVER_TRAP, E5_TOMCAT_OVER_TRAP, E5_APACHE13_TAIL] {
            assert!(o.text.starts_with(&times(o.value)), "{o:?}");
        }
    }
}
