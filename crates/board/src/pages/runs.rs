//! Runs: every stored run, filtered by family, machine, date and status,
//! a hundred to a page, newest first.

use super::{query_value, select, status_badge, Problem};
use crate::cache::Board;
use crate::layout::page;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write;
use toll_report::html::escape;
use toll_store::RunRow;

/// Runs on one page.
const PER_PAGE: usize = 100;

/// The runs page's query (and `GET /api/runs`'s).
#[derive(Debug, Default, Deserialize)]
pub struct Filter {
    #[serde(default)]
    pub family: String,
    #[serde(default)]
    pub host: String,
    #[serde(default)]
    pub status: String,
    /// Started on or after this date (YYYY-MM-DD).
    #[serde(default)]
    pub since: String,
    /// Started on or before this date (YYYY-MM-DD).
    #[serde(default)]
    pub until: String,
    #[serde(default)]
    pub page: Option<usize>,
}

impl Filter {
    /// Whether the filter's dates are dates of the calendar.
    pub fn check(&self) -> Result<(), Problem> {
        for (name, d) in [("since", &self.since), ("until", &self.until)] {
            if !d.is_empty() && !is_date(d) {
                return Err(Problem::Request(
                    400,
                    format!(
                        "{name}={d} is not a date: write it as YYYY-MM-DD, a month 01–12 and a day of that month, e.g. {name}=2026-01-31"
                    ),
                ));
            }
        }
        Ok(())
    }

    pub fn keeps(&self, r: &RunRow) -> bool {
        (self.family.is_empty() || r.family == self.family)
            && (self.host.is_empty() || r.host == self.host)
            && (self.status.is_empty() || r.status.as_str() == self.status)
            && (self.since.is_empty()
                || r.started_at.get(..10).unwrap_or("") >= self.since.as_str())
            && (self.until.is_empty()
                || r.started_at.get(..10).unwrap_or("") <= self.until.as_str())
    }

    fn query(&self, page: usize) -> String {
        format!(
            "/runs?family={}&host={}&status={}&since={}&until={}&page={page}",
            query_value(&self.family),
            query_value(&self.host),
            query_value(&self.status),
            query_value(&self.since),
            query_value(&self.until)
        )
    }
}

/// Whether `d` is YYYY-MM-DD and a day of the (proleptic Gregorian)
/// calendar: 2024-02-29 is, 2026-02-29 and 2026-13-45 are not.
fn is_date(d: &str) -> bool {
    let b = d.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// The runs page (made once per list of runs and query).
pub fn render(board: &Board, f: &Filter) -> Result<bytes::Bytes, Problem> {
    f.check()?;
    let key = f.query(f.page.unwrap_or(1));
    board.list_page(&key, |rows| Ok(make(rows, f)))
}

fn make(rows: &[RunRow], f: &Filter) -> String {
    let families: BTreeSet<String> = rows.iter().map(|r| r.family.clone()).collect();
    let hosts: BTreeSet<String> = rows.iter().map(|r| r.host.clone()).collect();
    let kept: Vec<&RunRow> = rows.iter().filter(|r| f.keeps(r)).collect();
    let pages = kept.len().div_ceil(PER_PAGE).max(1);
    let at = f.page.unwrap_or(1).clamp(1, pages);
    let mut h = String::new();
    h.push_str("<form class=\"filter\" method=\"get\" action=\"/runs\">");
    h.push_str(&select(
        "family",
        "any family",
        &families.into_iter().collect::<Vec<_>>(),
        &f.family,
    ));
    h.push_str(&select(
        "host",
        "any machine",
        &hosts.into_iter().collect::<Vec<_>>(),
        &f.host,
    ));
    let statuses: Vec<String> = ["complete", "partial", "failed", "running"]
        .map(String::from)
        .to_vec();
    h.push_str(&select("status", "any status", &statuses, &f.status));
    let _ = write!(
        h,
        "<label>since<input name=\"since\" placeholder=\"YYYY-MM-DD\" value=\"{}\"></label>\
         <label>until<input name=\"until\" placeholder=\"YYYY-MM-DD\" value=\"{}\"></label>\
         <button>Show</button></form>",
        escape(&f.since),
        escape(&f.until)
    );
    let _ = write!(
        h,
        "<p class=\"muted\">{} of {} runs{}</p>",
        kept.len(),
        rows.len(),
        if pages > 1 {
            format!(" · page {at} of {pages}")
        } else {
            String::new()
        }
    );
    h.push_str(
        "<div class=\"scroll\"><table class=\"runs\"><thead><tr><th>run</th><th>family</th><th>machine</th>\
         <th>started (UTC)</th><th>status</th><th>summary</th><th>trend</th></tr></thead><tbody>\n",
    );
    for r in kept.iter().skip((at - 1) * PER_PAGE).take(PER_PAGE) {
        let _ = writeln!(
            h,
            "<tr><td class=\"num\"><a href=\"/runs/{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td class=\"when\">{3}</td><td>{4}</td><td>{5}</td>\
             <td><a href=\"/trend?family={6}&amp;host={7}\">trend</a></td></tr>",
            r.id,
            escape(&r.family),
            escape(&r.host),
            escape(&r.started_at.replace('T', " ").replace('Z', "")),
            status_badge(r.status.as_str()),
            escape(&r.summary),
            escape(&query_value(&r.family)),
            escape(&query_value(&r.host))
        );
    }
    h.push_str("</tbody></table></div>\n");
    if pages > 1 {
        h.push_str("<p class=\"pager\">");
        if at > 1 {
            let _ = write!(h, "<a href=\"{}\">← newer</a>", escape(&f.query(at - 1)));
        }
        if at < pages {
            let _ = write!(h, "<a href=\"{}\">older →</a>", escape(&f.query(at + 1)));
        }
        h.push_str("</p>");
    }
    page("Runs", "/runs", &h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_of_the_calendar() {
        for ok in ["2026-01-31", "2024-02-29", "2000-02-29", "2026-12-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2026-13-45",
            "2026-02-29",
            "1900-02-29",
            "2026-04-31",
            "2026-00-10",
            "2026-01-00",
            "2026-1-5",
            "garbage",
            "",
            "２０２６-01-01",
            "2026/01/01",
            "+026-01-01",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        let f = Filter {
            since: "2026-13-45".into(),
            ..Filter::default()
        };
        let e = f.check().unwrap_err();
        assert_eq!(e.status(), 400);
        assert!(
            e.to_string()
                .starts_with("since=2026-13-45 is not a date: write it as YYYY-MM-DD"),
            "{e}"
        );
    }
}
