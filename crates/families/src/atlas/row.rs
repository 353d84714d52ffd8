//! One row of the atlas — a crossing, its figure with its interval (or why
//! it has none), what it is made of, the family run behind it and where in
//! that run the figure is — and the sheet a run fills, group by group.

use super::group::Group;
use crate::replicate::findings::Figure;
use serde::Serialize;
use serde_json::json;

/// What a row's figure is, and so its base unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A time, ns.
    Time,
    /// A rate, bytes per second.
    Rate,
    /// A size, bytes.
    Size,
    /// Requests a second.
    Requests,
}

impl Kind {
    /// The base unit stored with the figure.
    pub fn unit(self) -> &'static str {
        match self {
            Kind::Time => "ns",
            Kind::Rate => "B/s",
            Kind::Size => "B",
            Kind::Requests => "req/s",
        }
    }
}

/// Which figure of a stored series a row is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "take")]
pub enum Take {
    /// The median (and its interval) of the point at `n`.
    Point { n: u64 },
    /// The fitted α, as the stored decision has it.
    Alpha,
    /// The fitted β, as the stored decision has it.
    Beta,
    /// `bytes` per unit of n ÷ β, as bytes per second.
    Rate { bytes: f64 },
    /// n½ = α/β, in bytes (`bytes` per unit of n).
    NHalf { bytes: f64 },
    /// The knee of a sweep of offered rate (`toll http --sweep`), as its
    /// stored report has it.
    Knee,
}

/// Where in its family run a row's figure is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    pub series: String,
    #[serde(flatten)]
    pub take: Take,
}

impl Source {
    pub fn new(series: impl Into<String>, take: Take) -> Source {
        Source {
            series: series.into(),
            take,
        }
    }
}

/// What a crossing is made of: the words, and the rows of this same atlas
/// they name, each with how many of it (summed under the words when every
/// one was measured).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MadeOf {
    pub words: String,
    pub parts: Vec<(f64, String)>,
}

impl MadeOf {
    /// Words only.
    pub fn words(words: impl Into<String>) -> MadeOf {
        MadeOf {
            words: words.into(),
            parts: vec![],
        }
    }

    /// Words and the rows they name.
    pub fn of(words: impl Into<String>, parts: &[(f64, &str)]) -> MadeOf {
        MadeOf {
            words: words.into(),
            parts: parts.iter().map(|(k, r)| (*k, r.to_string())).collect(),
        }
    }
}

/// One crossing.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub group: Group,
    /// What is crossed, unique in the atlas: `syscall (getppid)`.
    pub crossing: String,
    pub kind: Kind,
    /// In the kind's base unit, or why it is missing (with the fix).
    pub figure: Result<Figure, String>,
    pub made_of: MadeOf,
    /// The size the preset measures it at, where its figure depends on one
    /// (`n = 10000`, `a 100 MB file`): two atlases' rows at different sizes
    /// are not the same crossing.
    pub at: Option<String>,
    /// The family run behind it (`toll show N`).
    pub run_id: Option<i64>,
    pub source: Option<Source>,
}

impl Row {
    /// The row as stored; `made_of` is its text with the sum filled in.
    pub fn stored(&self, made_of: &str) -> serde_json::Value {
        json!({
            "group": self.group, "crossing": self.crossing, "unit": self.kind.unit(),
            "figure": self.figure.as_ref().ok(), "missing": self.figure.as_ref().err(),
            "made_of": made_of, "at": self.at, "run": self.run_id, "source": self.source,
        })
    }
}

/// A row before it is measured: its crossing, kind, make-up and source.
#[derive(Debug, Clone)]
pub struct Planned {
    pub crossing: String,
    pub kind: Kind,
    pub made_of: MadeOf,
    pub source: Source,
    /// The size it is measured at, where the figure depends on one.
    pub at: Option<String>,
}

impl Planned {
    pub fn new(crossing: impl Into<String>, kind: Kind, made_of: MadeOf, source: Source) -> Self {
        Planned {
            crossing: crossing.into(),
            kind,
            made_of,
            source,
            at: None,
        }
    }

    /// The same row, measured at `size` (`n = 10000`).
    pub fn at(mut self, size: impl Into<String>) -> Self {
        self.at = Some(size.into());
        self
    }
}

/// What an atlas run gathers as it goes: the rows, the family runs (with
/// their family), and the failures, each in one line.
#[derive(Debug, Default)]
pub struct Sheet {
    pub rows: Vec<Row>,
    pub runs: Vec<(String, i64)>,
    pub errors: Vec<String>,
}

impl Sheet {
    /// A row without a figure, for `why`.
    pub fn missing(&mut self, group: Group, p: &Planned, why: impl Into<String>) {
        self.rows.push(Row {
            group,
            crossing: p.crossing.clone(),
            kind: p.kind,
            figure: Err(why.into()),
            made_of: p.made_of.clone(),
            at: p.at.clone(),
            run_id: None,
            source: None,
        });
    }

    /// A row as its run gave it.
    pub fn measured(
        &mut self,
        group: Group,
        p: &Planned,
        figure: Result<Figure, String>,
        run_id: i64,
    ) {
        self.rows.push(Row {
            group,
            crossing: p.crossing.clone(),
            kind: p.kind,
            figure,
            made_of: p.made_of.clone(),
            at: p.at.clone(),
            run_id: Some(run_id),
            source: Some(p.source.clone()),
        });
    }

    /// A family failed: said once, the rest goes on.
    pub fn failed(&mut self, what: &str, e: impl std::fmt::Display) {
        self.errors.push(format!("{what}: {e}"));
    }

    /// A row's figure by its crossing, when measured.
    pub fn figure(&self, crossing: &str) -> Option<Figure> {
        self.rows
            .iter()
            .find(|r| r.crossing == crossing)
            .and_then(|r| r.figure.clone().ok())
    }
}
