//! Earlier runs of a series on this machine, from this store and then from
//! toll's record of runs (`crate::record`): what the between-run term of a
//! series' intervals learns from. A fitted series gives its fit
//! ([`Store::earlier_fits`]); a one-point series (a system call, a
//! wake-up) its figure, kept in the series' attributes under `figure`
//! ([`Store::earlier_figures`]).

use crate::error::StoreError;
use crate::model::{EarlierFigure, EarlierFit};
use crate::store::{hostname, Store};
use serde_json::Value;
use toll_measure::run_to_run::Figure;
use toll_measure::SeriesFit;

/// One earlier series as read: its label, run config, attributes and fit
/// (JSON), and the store it came from when not this one.
struct Row {
    label: String,
    config: Value,
    attrs: Value,
    fit: Option<Value>,
    elsewhere: Option<String>,
}

impl Store {
    /// The fits of series `label` (of every series, when None) in earlier
    /// complete runs of `family` on this host whose CPU model is
    /// `cpu_model` and, when run `before_run` is stored, measured by the same
    /// toll on the same kernel with the same toolchain versions; imported
    /// runs only when `TOLL_HISTORY_IMPORTED=1`. Newest first (at most
    /// `limit`), each with its label, its
    /// run's config and the series' attributes, for the caller to keep the
    /// comparable ones. Fits that do not parse are skipped: history is
    /// advice, never a reason to fail a run.
    pub fn earlier_fits(
        &self,
        family: &str,
        label: Option<&str>,
        cpu_model: &str,
        before_run: i64,
        limit: usize,
    ) -> Result<Vec<EarlierFit>, StoreError> {
        self.earlier(family, label, cpu_model, before_run, limit, |r| {
            let fit = serde_json::from_value::<SeriesFit>(r.fit.clone()?).ok()?;
            Some(EarlierFit {
                label: r.label.clone(),
                config: r.config.clone(),
                attrs: r.attrs.clone(),
                fit,
                elsewhere: r.elsewhere.clone(),
            })
        })
    }

    /// The figures of one-point series `label` in earlier runs, under the
    /// same rules as [`Store::earlier_fits`]: each series' `figure`
    /// attribute, newest first.
    pub fn earlier_figures(
        &self,
        family: &str,
        label: &str,
        cpu_model: &str,
        before_run: i64,
        limit: usize,
    ) -> Result<Vec<EarlierFigure>, StoreError> {
        self.earlier(family, Some(label), cpu_model, before_run, limit, |r| {
            let figure = serde_json::from_value::<Figure>(r.attrs.get("figure")?.clone()).ok()?;
            Some(EarlierFigure {
                label: r.label.clone(),
                config: r.config.clone(),
                attrs: r.attrs.clone(),
                figure,
                elsewhere: r.elsewhere.clone(),
            })
        })
    }

    /// Earlier comparable series, newest first, the store's own runs and
    /// then the record's, as `pick` reads them (None: skipped).
    fn earlier<T>(
        &self,
        family: &str,
        label: Option<&str>,
        cpu_model: &str,
        before_run: i64,
        limit: usize,
        pick: impl Fn(&Row) -> Option<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::new();
        // This run's own toll, kernel and toolchains, when it is stored.
        let me = self
            .db
            .run_identity(before_run)?
            .map(|(v, env)| (v, serde_json::from_str(&env).unwrap_or_default()));
        let imported_too = std::env::var_os("TOLL_HISTORY_IMPORTED").is_some_and(|v| v == "1");
        let host = hostname();
        let own = self
            .db
            .earlier_rows(family, label, &host, before_run, limit * 2)?
            .into_iter()
            .map(|row| (row, None));
        // After the store's own runs, the machine's record of runs made into
        // other stores (read only when needed).
        let record = crate::record::path()
            .into_iter()
            .flat_map(|p| {
                let me = crate::record::store_name(&self.path);
                crate::record::read(&p, family, label, &host, &me)
            })
            .map(|e| {
                let row = (
                    e.label,
                    e.config.to_string(),
                    e.env.to_string(),
                    e.attrs.to_string(),
                    (!e.fit.is_null()).then(|| e.fit.to_string()),
                    e.version,
                    false,
                );
                (row, Some(e.store))
            });
        for ((label, config, env, attrs, fit, version, imported), elsewhere) in own.chain(record) {
            let env: Value = serde_json::from_str(&env).unwrap_or_default();
            if env.get("cpu_model").and_then(|v| v.as_str()) != Some(cpu_model)
                || (imported && !imported_too)
                || me
                    .as_ref()
                    .is_some_and(|(v, me)| !same_setting(v, me, &version, &env))
            {
                continue;
            }
            let (Ok(mut config), Ok(attrs)) =
                (serde_json::from_str(&config), serde_json::from_str(&attrs))
            else {
                continue;
            };
            crate::upgrade::config(&mut config);
            let row = Row {
                label,
                config,
                attrs,
                fit: fit.and_then(|f| serde_json::from_str(&f).ok()),
                elsewhere,
            };
            if let Some(t) = pick(&row) {
                out.push(t);
                if out.len() == limit {
                    break;
                }
            }
        }
        Ok(out)
    }
}

/// Whether an earlier run measured under the same setting as this one: the
/// same toll, the same kernel, and the same version of every toolchain
/// both runs used (a run of python and go admits one of go alone).
pub(crate) fn same_setting(
    version: &str,
    env: &serde_json::Value,
    their_version: &str,
    theirs: &serde_json::Value,
) -> bool {
    let tools = |e: &serde_json::Value| -> Vec<(String, String)> {
        e.get("toolchains")
            .and_then(|t| serde_json::from_value(t.clone()).ok())
            .unwrap_or_default()
    };
    let (mine, other) = (tools(env), tools(theirs));
    version == their_version
        && env.get("kernel") == theirs.get("kernel")
        && mine
            .iter()
            .all(|(t, v)| other.iter().all(|(u, w)| t != u || v == w))
}
