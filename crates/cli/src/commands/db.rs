//! Opening the results database named by --db, $TOLL_DB or the default.
//!
//! A measuring run creates the file (and its directory); a reading command
//! (`runs`, `show`, `export`, `rm`, `compare`, `report`, `predict`, the
//! board) never creates anything, and treats a store that does not exist yet
//! the same whether it was named or is the default: nothing stored there,
//! said with its path (so a mistyped path shows). A `postgres://` URL names a
//! team's shared PostgreSQL store instead of a file. Names that SQLite would
//! take but that would not keep results (`:memory:`, `file:` URIs) and URLs
//! of stores toll does not speak are refused before any work.

use crate::usage::usage;
use std::path::{Path, PathBuf};
use toll_store::{RunStatus, Store};

/// The database path: --db, else TOLL_DB, else the default.
pub fn path(db: Option<&Path>) -> PathBuf {
    db.map(Path::to_path_buf)
        .unwrap_or_else(Store::default_path)
}

/// Refuse a name that would not keep results in a file toll can read back.
pub fn check_name(p: &Path) -> anyhow::Result<()> {
    let text = p.to_string_lossy();
    let lower = text.to_ascii_lowercase();
    if toll_store::is_postgres_url(p) {
        return Ok(());
    }
    if text == ":memory:" || lower.starts_with("file:") {
        return Err(usage(format!(
            "--db {text}: an in-memory or URI database would lose the run at exit; give a file path (e.g. --db results.db)"
        )));
    }
    if let Some((scheme, _)) = text.split_once("://") {
        if !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
        {
            return Err(usage(format!(
                "--db {text}: `{scheme}://` is not a store toll speaks; give a file path (e.g. --db results.db) or a postgres:// URL"
            )));
        }
    }
    Ok(())
}

/// Open for writing (a measuring run), creating the file when needed.
pub fn open(db: Option<&Path>) -> anyhow::Result<Store> {
    let p = path(db);
    check_name(&p)?;
    Ok(Store::open(&p)?)
}

/// What a reading command found.
pub enum Found {
    Store(Store),
    /// No database at the default place yet, or a PostgreSQL database
    /// without toll's tables: nothing was ever measured into it. The name
    /// is fit for messages (a URL's password hidden).
    Nothing(PathBuf),
}

/// Open an existing database for reading; a read-only file is fine. One
/// rule whether the store was named (--db, TOLL_DB) or is the default: a
/// store that does not exist yet holds no runs, and a reading command never
/// creates it. Every message about it names the path, so a typo shows.
pub fn open_existing(db: Option<&Path>) -> anyhow::Result<Found> {
    let p = path(db);
    check_name(&p)?;
    match Store::open_if_present(&p)? {
        Some(store) => Ok(Found::Store(store)),
        None => Ok(Found::Nothing(PathBuf::from(toll_store::display_name(&p)))),
    }
}

/// Open an existing database, or say that nothing is stored yet.
pub fn open_for_reading(db: Option<&Path>) -> anyhow::Result<Store> {
    match open_existing(db)? {
        Found::Store(s) => Ok(s),
        Found::Nothing(p) => Err(nothing_yet(&p)),
    }
}

fn nothing_yet(p: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "no runs stored yet ({}): measure something first, e.g. `toll transfer`",
        where_nothing(p)
    )
}

/// Why a reading command found nothing at `p`.
pub fn where_nothing(p: &Path) -> String {
    if toll_store::is_postgres_url(p) {
        format!("toll's tables are not in {}", p.display())
    } else {
        match p
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.exists())
        {
            Some(dir) => format!(
                "no database at {}, and no directory {} either",
                p.display(),
                dir.display()
            ),
            None => format!("no database at {}", p.display()),
        }
    }
}

/// Check a run named on the command line before anything is opened, so a
/// mistake in it is named first.
pub fn check_run_ref(text: Option<&str>) -> anyhow::Result<()> {
    match text {
        None | Some("last") => Ok(()),
        Some(t) if t.parse::<i64>().is_ok_and(|id| id > 0) => Ok(()),
        Some(t) => Err(usage(format!(
            "bad run id `{t}`: give a number from `toll runs`, or `last`"
        ))),
    }
}

/// A run named on the command line: a number, or `last`.
pub fn run_id(store: &Store, text: Option<&str>) -> anyhow::Result<i64> {
    check_run_ref(text)?;
    match text {
        None | Some("last") => store.latest_run_id()?.ok_or_else(|| {
            usage("no runs stored yet: measure something first, e.g. `toll transfer`")
        }),
        Some(t) => t.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
            usage(format!(
                "bad run id `{t}`: give a number from `toll runs`, or `last`"
            ))
        }),
    }
}

/// The line every family prints after a run: where it is stored and how to
/// look at it again.
pub fn stored_line(store: &Store, id: i64, status: RunStatus) -> String {
    format!(
        "run {id} stored ({}) in {} — `toll show {id}`, `toll export {id} --format csv`",
        status.as_str(),
        store.path().display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_not_keep_results_are_refused() {
        for (name, needle) in [
            (":memory:", "lose the run at exit"),
            ("file:x?mode=memory", "lose the run at exit"),
            ("mysql://h/db", "`mysql://` is not a store"),
        ] {
            let e = check_name(Path::new(name)).unwrap_err().to_string();
            assert!(e.contains(needle), "{name}: {e}");
        }
        for ok in [
            "results.db",
            "a/b/c.db",
            "./x:y.db",
            "/tmp/t.db",
            "postgres://host/db",
            "postgresql://u@h/db",
        ] {
            assert!(check_name(Path::new(ok)).is_ok(), "{ok}");
        }
    }
}
