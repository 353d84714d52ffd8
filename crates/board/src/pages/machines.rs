//! Machines: one row per machine, with its headline figures for a family
//! from its newest complete run of that family — E1's table of machines,
//! sortable by any column.

use super::{query_value, Problem};
use crate::cache::Board;
use crate::headline::Head;
use crate::layout::page;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::Arc;
use toll_report::html::escape;
use toll_store::RunStatus;

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

/// One machine's row.
struct Row {
    host: String,
    cpu: String,
    cpus: u32,
    memory: u64,
    kernel: String,
    runs: usize,
    /// The run the figures come from, and its headlines by label.
    run: Option<i64>,
    heads: HashMap<String, Head>,
}

/// The machines page.
pub fn render(board: &Board, v: &View) -> Result<String, Problem> {
    let rows = board.runs()?;
    // Families by how many complete runs they have: the default is the most measured.
    let mut families: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows.iter() {
        *families.entry(r.family.clone()).or_default() += 1;
    }
    let family = if v.family.is_empty() {
        families
            .iter()
            .max_by_key(|(f, n)| (**n, std::cmp::Reverse((*f).clone())))
            .map(|(f, _)| f.clone())
            .unwrap_or_default()
    } else {
        v.family.clone()
    };
    // Newest first: the first run seen of a host is its newest.
    let mut machines: Vec<Row> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for r in rows.iter() {
        let i = *index.entry(r.host.as_str()).or_insert_with(|| {
            machines.push(Row {
                host: r.host.clone(),
                cpu: String::new(),
                cpus: 0,
                memory: 0,
                kernel: String::new(),
                runs: 0,
                run: None,
                heads: HashMap::new(),
            });
            machines.len() - 1
        });
        let m = &mut machines[i];
        m.runs += 1;
        if m.runs == 1 {
            let h = board.heads(r.id)?;
            m.cpu = h.env.cpu_model.clone();
            m.cpus = h.env.logical_cpus;
            m.memory = h.env.memory_bytes;
            m.kernel = h.env.kernel.clone();
        }
        if m.run.is_none() && r.family == family && r.status == RunStatus::Complete {
            m.run = Some(r.id);
            let h: Arc<_> = board.heads(r.id)?;
            m.heads = h
                .heads
                .iter()
                .map(|x| (x.label.clone(), x.clone()))
                .collect();
        }
    }
    // Series columns in the order the newest runs list them.
    let mut labels: Vec<String> = Vec::new();
    for m in &machines {
        if let Some(id) = m.run {
            for h in board.heads(id)?.heads.iter() {
                if !labels.contains(&h.label) {
                    labels.push(h.label.clone());
                }
            }
        }
    }
    sort(&mut machines, &v.sort, v.desc.unwrap_or(0) == 1);
    let mut h = String::new();
    h.push_str("<form class=\"filter\" method=\"get\" action=\"/machines\"><label>family<select name=\"family\">");
    for f in families.keys() {
        let sel = if *f == family { " selected" } else { "" };
        let _ = write!(h, "<option{sel}>{}</option>", escape(f));
    }
    h.push_str("</select></label><button>Show</button></form>\n");
    let _ = write!(
        h,
        "<p class=\"muted\">{} machines · figures from each machine's newest complete <b>{}</b> run \
         (α: fixed cost per crossing, β: cost per unit, each with its 95% CI) · click a column to sort</p>",
        machines.len(),
        escape(&family)
    );
    h.push_str("<div class=\"scroll\"><table class=\"machines\"><thead><tr>");
    let fixed = [
        ("machine", "machine"),
        ("cpu", "CPU"),
        ("cpus", "CPUs"),
        ("memory", "memory"),
        ("runs", "runs"),
    ];
    for (key, name) in fixed {
        h.push_str(&header(&family, key, name, v));
    }
    h.push_str("<th>kernel</th><th>from run</th>");
    for l in &labels {
        h.push_str(&header(&family, l, l, v));
    }
    h.push_str("</tr></thead><tbody>\n");
    for m in &machines {
        let _ = write!(
            h,
            "<tr><td><a href=\"/runs?host={}\">{}</a></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1} GiB</td>\
             <td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>",
            escape(&query_value(&m.host)),
            escape(&m.host),
            escape(&m.cpu),
            m.cpus,
            m.memory as f64 / (1u64 << 30) as f64,
            m.runs,
            escape(&m.kernel),
            m.run
                .map(|id| format!("<a href=\"/runs/{id}\">{id}</a>"))
                .unwrap_or_else(|| "—".into())
        );
        for l in &labels {
            match m.heads.get(l) {
                Some(x) => {
                    let _ = write!(h, "<td class=\"num\">{}</td>", x.figure.html(&x.verdict));
                }
                None => h.push_str("<td class=\"muted\">—</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
    Ok(page("Machines", "/machines", &h))
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

fn sort(machines: &mut [Row], key: &str, desc: bool) {
    let figure = |m: &Row| m.heads.get(key).map(|h| h.figure.key());
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
