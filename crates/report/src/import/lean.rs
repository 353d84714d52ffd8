//! A run's JSON read in one pass, every point's samples straight into
//! [`Sample`]s (16 bytes each) and the rest into a [`Value`]. Read whole as
//! a `Value`, a sample is an object of two keys — some 700 bytes — so a
//! pushed run of a million samples took the board 0.7 GB; read here it
//! takes 16 MB. The document comes back with each point's samples as `[]`
//! (so the schema check and serde read the rest as before), the samples
//! beside it by place, and the first element that is not a sample named.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;
use toll_measure::Sample;

/// A run's JSON, its samples apart.
#[derive(Debug)]
pub struct Lean {
    /// The document, each point's `samples` an empty array.
    pub doc: Value,
    /// (series, point, its samples), for each point whose samples were an
    /// array.
    pub samples: Vec<(usize, usize, Vec<Sample>)>,
    /// The first element of a samples array that is not a sample: where,
    /// and why (as the schema check words it).
    pub bad: Option<String>,
}

/// Read one JSON value from `d` as a run's JSON.
pub fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Lean, D::Error> {
    let found = RefCell::new(Found::default());
    let doc = Node {
        at: At::Top,
        found: &found,
    }
    .deserialize(d)?;
    let found = found.into_inner();
    Ok(Lean {
        doc,
        samples: found.samples,
        bad: found.bad,
    })
}

/// The JSON type of `value`, as a schema names it.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[derive(Default)]
struct Found {
    samples: Vec<(usize, usize, Vec<Sample>)>,
    bad: Option<String>,
}

impl Found {
    fn bad(&mut self, why: String) {
        self.bad.get_or_insert(why);
    }
}

/// Where a value is in a run's JSON; `Other` is anywhere samples cannot be.
#[derive(Clone, Copy)]
enum At {
    Top,
    SeriesList,
    Series(usize),
    Points(usize),
    Point(usize, usize),
    Samples(usize, usize),
    Other,
}

impl At {
    fn key(self, key: &str) -> At {
        match (self, key) {
            (At::Top, "series") => At::SeriesList,
            (At::Series(s), "points") => At::Points(s),
            (At::Point(s, p), "samples") => At::Samples(s, p),
            _ => At::Other,
        }
    }

    fn element(self, i: usize) -> At {
        match self {
            At::SeriesList => At::Series(i),
            At::Points(s) => At::Point(s, i),
            _ => At::Other,
        }
    }
}

/// A value at `at`, read into a [`Value`] but for the samples it holds.
struct Node<'a> {
    at: At,
    found: &'a RefCell<Found>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.at {
            At::Other => Value::deserialize(d),
            _ => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(v.into())
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if let At::Samples(s, p) = self.at {
            let mut samples = Vec::new();
            let mut k = 0;
            // An element that is not a sample is named (the first one) and
            // left out: the run is refused for it.
            while let Some(got) = seq.next_element_seed(OneSample {
                at: (s, p, k),
                found: self.found,
            })? {
                samples.extend(got);
                k += 1;
            }
            self.found.borrow_mut().samples.push((s, p, samples));
            return Ok(Value::Array(Vec::new()));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Node {
            at: self.at.element(out.len()),
            found: self.found,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Node {
                at: self.at.key(&k),
                found: self.found,
            })?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// One element of a samples array: a sample, or None (and named in
/// [`Found::bad`]) when it is not one.
struct OneSample<'a> {
    at: (usize, usize, usize),
    found: &'a RefCell<Found>,
}

impl OneSample<'_> {
    fn path(&self) -> String {
        let (s, p, k) = self.at;
        format!("$.series[{s}].points[{p}].samples[{k}]")
    }

    fn not_one(&self, what: &str) -> Option<Sample> {
        self.found
            .borrow_mut()
            .bad(format!("{}: {what}, not object", self.path()));
        None
    }
}

impl<'de> DeserializeSeed<'de> for OneSample<'_> {
    type Value = Option<Sample>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Sample>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for OneSample<'_> {
    type Value = Option<Sample>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sample")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Option<Sample>, E> {
        Ok(self.not_one("boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Option<Sample>, E> {
        Ok(self.not_one("integer"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Option<Sample>, E> {
        Ok(self.not_one("integer"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Option<Sample>, E> {
        Ok(self.not_one("number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Option<Sample>, E> {
        Ok(self.not_one("string"))
    }

    fn visit_unit<E>(self) -> Result<Option<Sample>, E> {
        Ok(self.not_one("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Sample>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(self.not_one("array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Sample>, A::Error> {
        let (mut iters, mut total_ns) = (None, None);
        let mut wrong = None;
        while let Some(key) = map.next_key::<Key>()? {
            let (slot, name) = match key {
                Key::Iters => (&mut iters, "iters"),
                Key::TotalNs => (&mut total_ns, "total_ns"),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let v = map.next_value::<Value>()?;
            match v.as_u64() {
                Some(n) => *slot = Some(n),
                None if type_name(&v) == "integer" => {
                    wrong.get_or_insert(format!("{}.{name}: {v} is below 0", self.path()));
                }
                None => {
                    wrong.get_or_insert(format!(
                        "{}.{name}: {}, not integer",
                        self.path(),
                        type_name(&v)
                    ));
                }
            }
        }
        let missing = |name| format!("{}: `{name}` is missing", self.path());
        let why = match (iters, total_ns, wrong) {
            (_, _, Some(why)) => why,
            (Some(iters), Some(total_ns), None) => return Ok(Some(Sample { iters, total_ns })),
            (None, _, None) => missing("iters"),
            (_, None, None) => missing("total_ns"),
        };
        self.found.borrow_mut().bad(why);
        Ok(None)
    }
}

/// A sample's key, read without making a string of it.
enum Key {
    Iters,
    TotalNs,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "iters" => Key::Iters,
                    "total_ns" => Key::TotalNs,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lean(text: &str) -> Lean {
        read(&mut serde_json::Deserializer::from_str(text)).unwrap()
    }

    #[test]
    fn samples_are_read_apart_and_the_rest_as_it_was() {
        let text = r#"{"series": [{"points": [
            {"n": 1, "samples": [{"iters": 2, "total_ns": 30, "x": [1]}, {"total_ns": 5, "iters": 1}]},
            {"n": 2, "samples": []}, {"n": 3, "samples": "none"}]},
            "not a series", {"points": 7, "samples": [{"iters": 1}]}],
            "config": {"samples": [{"iters": "kept"}]}}"#;
        let l = lean(text);
        assert_eq!(l.bad, None);
        assert_eq!(
            l.samples,
            [
                (
                    0,
                    0,
                    vec![
                        Sample {
                            iters: 2,
                            total_ns: 30
                        },
                        Sample {
                            iters: 1,
                            total_ns: 5
                        }
                    ]
                ),
                (0, 1, vec![])
            ]
        );
        let mut whole: Value = serde_json::from_str(text).unwrap();
        whole["series"][0]["points"][0]["samples"] = Value::Array(vec![]);
        assert_eq!(l.doc, whole, "only the points' own samples are taken out");
    }

    #[test]
    fn the_first_element_that_is_not_a_sample_is_named() {
        for (element, why) in [
            (r#"{"total_ns": 1}"#, "samples[1]: `iters` is missing"),
            (r#"{"iters": 1}"#, "samples[1]: `total_ns` is missing"),
            (
                r#"{"iters": "1", "total_ns": 1}"#,
                "samples[1].iters: string, not integer",
            ),
            (
                r#"{"iters": 1, "total_ns": -4}"#,
                "samples[1].total_ns: -4 is below 0",
            ),
            (
                r#"{"iters": 1.5, "total_ns": 4}"#,
                "samples[1].iters: number, not integer",
            ),
            ("[1, 2]", "samples[1]: array, not object"),
            ("null", "samples[1]: null, not object"),
        ] {
            let l = lean(&format!(
                r#"{{"series": [{{"points": [{{"samples": [{{"iters": 1, "total_ns": 1}}, {element}, 3]}}]}}]}}"#
            ));
            let bad = l.bad.unwrap();
            assert_eq!(bad, format!("$.series[0].points[0].{why}"), "{element}");
        }
    }
}
