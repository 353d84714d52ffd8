//! A run's JSON export in two parts: its frame — everything but the
//! samples, a few kilobytes however many samples the run has — made at
//! once, with a gap where each point's samples go; and the samples, written
//! into each gap a chunk at a time as they are read (from memory for `toll
//! export`, from the store for the board's `GET /api/runs/{id}`). Frame and
//! samples together are byte for byte what serde_json's pretty printer
//! makes of the whole run, and no writer holds a large run's export whole.

use super::exporter::SCHEMA_VERSION;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use std::io::{self, Write};
use toll_measure::Sample;
use toll_store::{Point, Run, Series};

/// The export of a run without its samples, and where they go.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The export with every point's samples as `[]`, ending in a newline.
    pub text: Vec<u8>,
    /// Each point's gap, in the order of `text`.
    pub gaps: Vec<Gap>,
}

/// Where one point's samples go: the `[]` at `at` in the frame's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The offset of the `[]` the samples replace.
    pub at: usize,
    /// The point's series, by position in the run.
    pub series: usize,
    /// The point, by position in its series.
    pub point: usize,
    /// The indentation of the `"samples"` key, in spaces.
    indent: usize,
}

impl Gap {
    /// The frame's bytes the samples replace (`[]`).
    pub const WIDTH: usize = 2;
}

impl Frame {
    /// The frame of `run`'s export; its samples are not read.
    pub fn of(run: &Run) -> Frame {
        let mut v = serde_json::to_value(bare(run)).expect("a run serialises");
        v["schema_version"] = SCHEMA_VERSION.into();
        let text = RefCell::new(Vec::new());
        let gaps = RefCell::new(Vec::new());
        let walk = Walk {
            v: &v,
            at: At::Top,
            text: &text,
            gaps: &gaps,
        };
        let mut ser = serde_json::Serializer::with_formatter(
            Tap(&text),
            serde_json::ser::PrettyFormatter::new(),
        );
        walk.serialize(&mut ser).expect("a value serialises");
        let mut text = text.into_inner();
        text.push(b'\n');
        Frame {
            text,
            gaps: gaps.into_inner(),
        }
    }

    /// Write the whole export to `out`, each gap's samples from `samples`.
    pub fn write_with<'a>(
        &self,
        out: &mut dyn Write,
        samples: impl Fn(&Gap) -> &'a [Sample],
    ) -> io::Result<()> {
        let mut from = 0;
        let mut buf = Vec::new();
        for gap in &self.gaps {
            out.write_all(&self.text[from..gap.at])?;
            let mut list = SampleList::new(gap);
            for chunk in samples(gap).chunks(4096) {
                list.put(chunk, &mut buf);
                out.write_all(&buf)?;
                buf.clear();
            }
            list.end(&mut buf);
            out.write_all(&buf)?;
            buf.clear();
            from = gap.at + Gap::WIDTH;
        }
        out.write_all(&self.text[from..])
    }
}

/// One point's samples as the pretty printer writes them, a chunk at a time.
#[derive(Debug)]
pub struct SampleList {
    /// The elements' indentation, in spaces.
    indent: usize,
    written: bool,
}

impl SampleList {
    /// The list that fills `gap`.
    pub fn new(gap: &Gap) -> SampleList {
        SampleList {
            indent: gap.indent + 2,
            written: false,
        }
    }

    /// Append `samples` (the next ones, in order) to `out`.
    pub fn put(&mut self, samples: &[Sample], out: &mut Vec<u8>) {
        let pad = self.indent;
        for s in samples {
            out.extend_from_slice(if self.written { b",\n" } else { b"[\n" });
            self.written = true;
            let _ = write!(
                out,
                "{:pad$}{{\n{:inner$}\"iters\": {},\n{:inner$}\"total_ns\": {}\n{:pad$}}}",
                "",
                "",
                s.iters,
                "",
                s.total_ns,
                "",
                inner = pad + 2
            );
        }
    }

    /// Close the list.
    pub fn end(self, out: &mut Vec<u8>) {
        if self.written {
            let _ = write!(out, "\n{:w$}]", "", w = self.indent - 2);
        } else {
            out.extend_from_slice(b"[]");
        }
    }
}

/// `run` without its samples, copied without copying them.
fn bare(run: &Run) -> Run {
    Run {
        id: run.id,
        family: run.family.clone(),
        started_at: run.started_at.clone(),
        finished_at: run.finished_at.clone(),
        status: run.status,
        summary: run.summary.clone(),
        error: run.error.clone(),
        config: run.config.clone(),
        env: run.env.clone(),
        tool_version: run.tool_version.clone(),
        series: run
            .series
            .iter()
            .map(|s| Series {
                id: s.id,
                label: s.label.clone(),
                attrs: s.attrs.clone(),
                fit: s.fit.clone(),
                points: s
                    .points
                    .iter()
                    .map(|p| Point {
                        n: p.n,
                        status: p.status,
                        error: p.error.clone(),
                        summary: p.summary.clone(),
                        samples: Vec::new(),
                        extra: p.extra.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The frame's text as it is written, for the gaps' offsets.
struct Tap<'a>(&'a RefCell<Vec<u8>>);

impl Write for Tap<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where in a run's JSON a value is.
#[derive(Clone, Copy)]
enum At {
    Top,
    SeriesList,
    Series(usize),
    Points(usize),
    Point(usize, usize),
    Samples(usize, usize),
}

/// A value of the run's JSON, serialised as serde_json serialises a
/// [`Value`], noting where each point's samples begin.
struct Walk<'a> {
    v: &'a Value,
    at: At,
    text: &'a RefCell<Vec<u8>>,
    gaps: &'a RefCell<Vec<Gap>>,
}

impl<'a> Walk<'a> {
    fn to(&self, v: &'a Value, at: At) -> Walk<'a> {
        Walk {
            v,
            at,
            text: self.text,
            gaps: self.gaps,
        }
    }

    /// Where `key` of an object at this place leads.
    fn inside(&self, key: &str) -> Option<At> {
        match (self.at, key) {
            (At::Top, "series") => Some(At::SeriesList),
            (At::Series(s), "points") => Some(At::Points(s)),
            (At::Point(s, p), "samples") => Some(At::Samples(s, p)),
            _ => None,
        }
    }
}

impl Serialize for Walk<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match (self.at, self.v) {
            (At::Top | At::Series(_) | At::Point(..), Value::Object(m)) => {
                let mut map = ser.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    match self.inside(k) {
                        Some(at) => map.serialize_entry(k, &self.to(v, at))?,
                        None => map.serialize_entry(k, v)?,
                    }
                }
                map.end()
            }
            (At::SeriesList, Value::Array(a)) => {
                let mut seq = ser.serialize_seq(Some(a.len()))?;
                for (s, v) in a.iter().enumerate() {
                    seq.serialize_element(&self.to(v, At::Series(s)))?;
                }
                seq.end()
            }
            (At::Points(s), Value::Array(a)) => {
                let mut seq = ser.serialize_seq(Some(a.len()))?;
                for (p, v) in a.iter().enumerate() {
                    seq.serialize_element(&self.to(v, At::Point(s, p)))?;
                }
                seq.end()
            }
            (At::Samples(series, point), _) => {
                // The key and its `: ` are written: the value starts here.
                let text = self.text.borrow();
                let at = text.len();
                let line = text[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let indent = text[line..].iter().take_while(|&&b| b == b' ').count();
                drop(text);
                self.gaps.borrow_mut().push(Gap {
                    at,
                    series,
                    point,
                    indent,
                });
                ser.serialize_seq(Some(0))?.end()
            }
            _ => self.v.serialize(ser),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toll_measure::Fingerprint;
    use toll_store::{PointStatus, RunStatus};

    fn run(samples: &[usize]) -> Run {
        let point = |n: usize, k: usize| Point {
            n: n as u64,
            status: PointStatus::Ok,
            error: None,
            summary: None,
            samples: (0..k as u64)
                .map(|t| Sample {
                    iters: t + 1,
                    total_ns: 1000 * t + 7,
                })
                .collect(),
            extra: (n == 1).then(|| json!({"samples": [], "note": "[]"})),
        };
        Run {
            id: 3,
            family: "transfer".into(),
            started_at: "2026-01-02T03:04:05Z".into(),
            finished_at: None,
            status: RunStatus::Complete,
            summary: "s".into(),
            error: None,
            config: json!({"samples": [1, 2], "sizes": [0, 10]}),
            env: Fingerprint::default(),
            tool_version: "0".into(),
            series: vec![
                Series {
                    id: 1,
                    label: "a".into(),
                    attrs: json!({"points": []}),
                    fit: None,
                    points: samples
                        .iter()
                        .enumerate()
                        .map(|(n, &k)| point(n, k))
                        .collect(),
                },
                Series {
                    id: 2,
                    label: "b".into(),
                    attrs: json!({}),
                    fit: None,
                    points: vec![],
                },
            ],
        }
    }

    /// What the exporter wrote before the frame: the whole run as a value.
    fn whole(run: &Run) -> Vec<u8> {
        let mut v = serde_json::to_value(run).unwrap();
        v["schema_version"] = SCHEMA_VERSION.into();
        let mut out = serde_json::to_vec_pretty(&v).unwrap();
        out.push(b'\n');
        out
    }

    #[test]
    fn frame_and_samples_are_the_whole_run_byte_for_byte() {
        for samples in [&[][..], &[0], &[1], &[0, 5000, 3], &[2, 0, 0, 1]] {
            let r = run(samples);
            let frame = Frame::of(&r);
            assert_eq!(frame.gaps.len(), samples.len(), "one gap per point");
            let mut out = Vec::new();
            frame
                .write_with(&mut out, |g| &r.series[g.series].points[g.point].samples)
                .unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(whole(&r)).unwrap(),
                "{samples:?}"
            );
        }
    }

    #[test]
    fn a_gap_is_a_points_own_samples_not_a_key_of_the_same_name_elsewhere() {
        let r = run(&[2, 3]);
        let frame = Frame::of(&r);
        for g in &frame.gaps {
            assert_eq!(&frame.text[g.at..g.at + Gap::WIDTH], b"[]");
            assert_eq!(g.series, 0);
        }
        assert_eq!(
            frame.gaps.iter().map(|g| g.point).collect::<Vec<_>>(),
            [0, 1]
        );
        // Chunks of any size make the same list.
        let g = frame.gaps[1];
        let (mut one, mut each) = (SampleList::new(&g), SampleList::new(&g));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        one.put(&r.series[0].points[1].samples, &mut a);
        for s in &r.series[0].points[1].samples {
            each.put(std::slice::from_ref(s), &mut b);
        }
        one.end(&mut a);
        each.end(&mut b);
        assert_eq!(a, b);
    }
}
