//! Machines: every machine of a family, and the table E1's author kept by
//! hand — one row per series, one column per machine, each cell the
//! headline figure from the newest complete run of that machine that holds
//! the series (not only the machine's newest run: a run that measured
//! fewer series hides none), linked to its run and its trend. Machines
//! sort by any of their columns or by a series' figure.

use super::{default_family, families, query_value, Problem};
use crate::cache::Board;
use crate::headline::Head;
use crate::layout::page;
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt::Write;
use toll_report::html::escape;
use toll_store::{RunRow, RunStatus};

/// How many of a machine's newest complete runs of the family are read
/// for its series.
const PER_MACHINE: usize = 30;
/// How many runs one page reads in all (well below what the cache keeps,
/// so a reload is lookups only).
const PER_PAGE: usize = 240;

/// The machines page's query.
#[derive(Debug, Default, Deserialize)]
pub struct View {
    #[serde(default)]
    pub family: String,
    /// A column: machine, cpu, cpus, memory, runs, or a series label.
    #[serde(default)]
    pub sort: String,
    #[serde(default)]
    pub desc: Option<u8>,
}

/// One series' figure on one machine.
struct Cell {
    /// The newest run that holds the series.
    run: i64,
    head: Head,
    /// How many of the runs read hold it.
    runs: usize,
}

/// One machine.
struct Machine {
    host: String,
    cpu: String,
    cpus: u32,
    memory: u64,
    kernel: String,
    /// Runs of any family.
    runs: usize,
    /// Complete runs of the family, and how many of them were read.
    family_runs: usize,
    read: usize,
    /// Its newest complete run of the family.
    newest: Option<i64>,
    cells: HashMap<String, Cell>,
}

/// The machines page (made once per list of runs and query).
pub fn render(board: &Board, v: &View) -> Result<bytes::Bytes, Problem> {
    let key = format!(
        "/machines?family={}&sort={}&desc={}",
        query_value(&v.family),
        query_value(&v.sort),
        v.desc.unwrap_or(0)
    );
    board.list_page(&key, |rows| make(board, rows, v))
}

fn make(board: &Board, rows: &[RunRow], v: &View) -> Result<String, Problem> {
    let all_families = families(rows);
    let family = if v.family.is_empty() {
        default_family(rows)
    } else {
        v.family.clone()
    };
    // Newest first: the first run seen of a host is its newest.
    let mut machines: Vec<Machine> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // Series in the order the newest runs list them.
    let mut labels: Vec<String> = Vec::new();
    let mut read = 0;
    for r in rows {
        let i = *index.entry(r.host.as_str()).or_insert_with(|| {
            machines.push(Machine {
                host: r.host.clone(),
                cpu: String::new(),
                cpus: 0,
                memory: 0,
                kernel: String::new(),
                runs: 0,
                family_runs: 0,
                read: 0,
                newest: None,
                cells: HashMap::new(),
            });
            machines.len() - 1
        });
        let m = &mut machines[i];
        m.runs += 1;
        if m.runs == 1 {
            let h = board.heads(r)?;
            m.cpu = h.env.cpu_model.clone();
            m.cpus = h.env.logical_cpus;
            m.memory = h.env.memory_bytes;
            m.kernel = h.env.kernel.clone();
        }
        if r.family != family || r.status != RunStatus::Complete {
            continue;
        }
        m.family_runs += 1;
        m.newest.get_or_insert(r.id);
        if m.read >= PER_MACHINE || read >= PER_PAGE {
            continue;
        }
        m.read += 1;
        read += 1;
        for head in board.heads(r)?.heads.iter() {
            if !labels.contains(&head.label) {
                labels.push(head.label.clone());
            }
            m.cells
                .entry(head.label.clone())
                .or_insert_with(|| Cell {
                    run: r.id,
                    head: head.clone(),
                    runs: 0,
                })
                .runs += 1;
        }
    }
    sort(&mut machines, &v.sort, v.desc.unwrap_or(0) == 1);
    let mut h = String::new();
    h.push_str("<form class=\"filter\" method=\"get\" action=\"/machines\"><label>family<select name=\"family\">");
    for f in &all_families {
        let sel = if *f == family { " selected" } else { "" };
        let _ = write!(h, "<option{sel}>{}</option>", escape(f));
    }
    h.push_str("</select></label><button>Show</button></form>\n");
    let _ = write!(
        h,
        "<p class=\"muted\">{} machine{} · click a column to sort them</p>",
        machines.len(),
        if machines.len() == 1 { "" } else { "s" }
    );
    h.push_str("<div class=\"scroll\"><table class=\"machines\"><thead><tr>");
    for (key, name) in [
        ("machine", "machine"),
        ("cpu", "CPU"),
        ("cpus", "CPUs"),
        ("memory", "memory"),
        ("runs", "runs"),
    ] {
        h.push_str(&header(&family, key, name, v));
    }
    let _ = writeln!(
        h,
        "<th>kernel</th><th>{} runs</th><th>newest</th></tr></thead><tbody>",
        escape(&family)
    );
    for m in &machines {
        let _ = writeln!(
            h,
            "<tr><td><a href=\"/runs?host={}\">{}</a></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1} GiB</td>\
             <td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&query_value(&m.host)),
            escape(&m.host),
            escape(&m.cpu),
            m.cpus,
            m.memory as f64 / (1u64 << 30) as f64,
            m.runs,
            escape(&m.kernel),
            m.family_runs,
            m.newest
                .map(|id| format!("<a href=\"/runs/{id}\">{id}</a>"))
                .unwrap_or_else(|| "—".into())
        );
    }
    h.push_str("</tbody></table></div>\n");
    series_table(&mut h, &family, &labels, &machines, v);
    Ok(page("Machines", "/machines", &h))
}

/// The series × machines table.
fn series_table(h: &mut String, family: &str, labels: &[String], machines: &[Machine], v: &View) {
    let _ = write!(
        h,
        "<h2>Every {0} series on every machine</h2>\
         <p class=\"muted\">Each cell: the newest complete <b>{0}</b> run of that machine holding the series \
         (among its newest {PER_MACHINE}); where the series has a model, α: fixed cost per crossing, β: cost per unit \
         (95% CIs in the tooltip). Its trend follows the series across runs. Click a series to sort the machines by it.</p>",
        escape(family)
    );
    if labels.is_empty() {
        let _ = write!(
            h,
            "<p class=\"muted\">No complete {} run on this board yet.</p>",
            escape(family)
        );
        return;
    }
    let shown: Vec<&Machine> = machines.iter().filter(|m| m.read > 0).collect();
    h.push_str("<div class=\"scroll\"><table class=\"series\"><thead><tr><th>series</th>");
    for m in &shown {
        let _ = write!(
            h,
            "<th><a href=\"/trend?family={}&amp;host={}\">{}</a></th>",
            escape(&query_value(family)),
            escape(&query_value(&m.host)),
            escape(&m.host)
        );
    }
    h.push_str("</tr></thead><tbody>\n");
    for l in labels {
        h.push_str("<tr>");
        h.push_str(&header(family, l, l, v).replacen("<th>", "<th scope=\"row\">", 1));
        for m in &shown {
            match m.cells.get(l) {
                Some(c) => {
                    let _ = write!(
                        h,
                        "<td class=\"num\">{}<br><span class=\"muted\"><a href=\"/runs/{1}\">run {1}</a> · \
                         <a href=\"/trend?family={2}&amp;series={3}&amp;host={4}\">trend ({5})</a></span></td>",
                        c.head.figure.html(&c.head.verdict),
                        c.run,
                        escape(&query_value(family)),
                        escape(&query_value(l)),
                        escape(&query_value(&m.host)),
                        c.runs
                    );
                }
                None => h.push_str("<td class=\"muted\">—</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// A sortable column's header: a link that sorts by it (again: the other way).
fn header(family: &str, key: &str, name: &str, v: &View) -> String {
    let on = v.sort == key;
    let desc = if on && v.desc.unwrap_or(0) == 0 { 1 } else { 0 };
    format!(
        "<th><a{} href=\"/machines?family={}&amp;sort={}&amp;desc={desc}\">{}{}</a></th>",
        if on { " class=\"sorted\"" } else { "" },
        escape(&query_value(family)),
        escape(&query_value(key)),
        escape(name),
        if on {
            if desc == 1 {
                " ▲"
            } else {
                " ▼"
            }
        } else {
            ""
        }
    )
}

fn sort(machines: &mut [Machine], key: &str, desc: bool) {
    let figure = |m: &Machine| m.cells.get(key).map(|c| c.head.figure.key());
    machines.sort_by(|a, b| {
        let o = match key {
            "" | "machine" => a.host.cmp(&b.host),
            "cpu" => a.cpu.cmp(&b.cpu),
            "cpus" => a.cpus.cmp(&b.cpus),
            "memory" => a.memory.cmp(&b.memory),
            "runs" => a.runs.cmp(&b.runs),
            // Machines without the figure last, whichever way.
            _ => match (figure(a), figure(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => return std::cmp::Ordering::Less,
                (None, Some(_)) => return std::cmp::Ordering::Greater,
                (None, None) => a.host.cmp(&b.host),
            },
        };
        if desc {
            o.reverse()
        } else {
            o
        }
    });
}
