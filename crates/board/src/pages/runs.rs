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
    /// Whether the filter's dates are dates.
    pub fn check(&self) -> Result<(), Problem> {
        for (name, d) in [("since", &self.since), ("until", &self.until)] {
            let ok = d.is_empty()
                || (d.len() == 10
                    && d.bytes().enumerate().all(|(i, b)| {
                        if i == 4 || i == 7 {
                            b == b'-'
                        } else {
                            b.is_ascii_digit()
                        }
                    }));
            if !ok {
                return Err(Problem::Request(
                    400,
                    format!("{name}={d} is not a date: write it as YYYY-MM-DD"),
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
            "<tr><td class=\"num\"><a href=\"/runs/{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td>\
             <td><a href=\"/trend?family={6}&amp;host={7}\">trend</a></td></tr>",
            r.id,
            escape(&r.family),
            escape(&r.host),
            escape(&r.started_at),
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
