//! What a crossing is made of, in words and — where the words name other
//! rows of this same atlas (a pipe round trip: a wake-up round trip across
//! cores; a warm pread: a syscall and a 4 KiB copy) — in figures: the sum
//! of those rows as measured here, beside the row's own figure.

use super::row::{Kind, Row, Sheet};
use toll_report::table::fmt_ns;

/// The row's make-up as stored and printed: its words, then the sum of
/// the rows they name when every one was measured.
pub fn text(row: &Row, sheet: &Sheet) -> String {
    let m = &row.made_of;
    if m.parts.is_empty() {
        return m.words.clone();
    }
    let mut sum = 0.0;
    for (k, crossing) in &m.parts {
        let Some(part) = sheet.rows.iter().find(|r| &r.crossing == crossing) else {
            return m.words.clone();
        };
        let Ok(f) = &part.figure else {
            return m.words.clone();
        };
        sum += match part.kind {
            Kind::Time => k * f.value,
            // k bytes at this rate.
            Kind::Rate if f.value > 0.0 => k * 1e9 / f.value,
            _ => return m.words.clone(),
        };
    }
    let names: Vec<String> = m
        .parts
        .iter()
        .map(|(k, c)| match k {
            k if (*k - 1.0).abs() < 1e-9 => c.clone(),
            k => format!("{k} × {c}"),
        })
        .collect();
    format!(
        "{}; from this atlas: {} ≈ {}",
        m.words,
        names.join(" + "),
        fmt_ns(sum)
    )
}

#[cfg(test)]
mod tests {
    use super::super::group::Group;
    use super::super::row::{MadeOf, Planned, Source, Take};
    use super::*;
    use crate::replicate::findings::Figure;

    fn planned(crossing: &str, kind: Kind, made_of: MadeOf) -> Planned {
        Planned::new(
            crossing,
            kind,
            made_of,
            Source::new("x", Take::Point { n: 0 }),
        )
    }

    #[test]
    fn parts_are_summed_only_when_every_one_was_measured() {
        let mut sheet = Sheet::default();
        let g = Group::Hardware;
        sheet.measured(
            g,
            &planned("syscall", Kind::Time, MadeOf::default()),
            Ok(Figure::new(100.0, 90.0, 110.0)),
            1,
        );
        sheet.measured(
            g,
            &planned("memcpy", Kind::Rate, MadeOf::default()),
            Ok(Figure::new(1e10, 9e9, 1.1e10)),
            1,
        );
        let pread = planned(
            "pread",
            Kind::Time,
            MadeOf::of(
                "a syscall and a copy",
                &[(1.0, "syscall"), (4096.0, "memcpy")],
            ),
        );
        sheet.measured(g, &pread, Ok(Figure::new(900.0, 800.0, 1000.0)), 2);
        let t = text(&sheet.rows[2], &sheet);
        assert_eq!(
            t,
            "a syscall and a copy; from this atlas: syscall + 4096 × memcpy ≈ 510 ns"
        );
        let lost = planned(
            "pipe",
            Kind::Time,
            MadeOf::of("a wake-up", &[(1.0, "wake")]),
        );
        sheet.missing(g, &lost, "not measured");
        assert_eq!(text(&sheet.rows[3], &sheet), "a wake-up");
    }
}
