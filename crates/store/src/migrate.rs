//! Versioned schema migrations: step k takes a database from version k to k+1.
//! The version lives in `PRAGMA user_version`; `PRAGMA application_id` marks
//! the file as toll's.

use rusqlite::Connection;

/// `toll` in ASCII: marks a SQLite file as a toll database.
pub const APPLICATION_ID: i64 = 0x746f_6c6c;

/// Each step, in order; the schema version is the number of steps applied.
const STEPS: &[&str] = &[
    // 1: runs, series, points, samples.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        family TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'partial', 'failed')),
        summary TEXT NOT NULL DEFAULT '',
        error TEXT,
        config_json TEXT NOT NULL,
        env_json TEXT NOT NULL,
        tool_version TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL
    );
    CREATE TABLE series (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        attrs_json TEXT NOT NULL,
        fit_json TEXT
    );
    CREATE INDEX series_by_run ON series(run_id);
    CREATE TABLE points (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        error TEXT,
        summary_json TEXT
    );
    CREATE INDEX points_by_series ON points(series_id);
    CREATE TABLE samples (
        point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
        trial INTEGER NOT NULL,
        iters INTEGER NOT NULL,
        total_ns INTEGER NOT NULL,
        PRIMARY KEY (point_id, trial)
    );",
    // 2: per-point figures beyond the timings (spawn's memory per unit).
    "ALTER TABLE points ADD COLUMN extra_json TEXT;",
];

/// The schema version this toll writes.
pub const LATEST: i64 = STEPS.len() as i64;

/// The database's schema version.
pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Whether the file is toll's: marked so, or still empty.
pub fn is_toll(conn: &Connection) -> rusqlite::Result<bool> {
    let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    Ok(app == APPLICATION_ID || (app == 0 && tables == 0))
}

/// Apply every step past the current version, all in one transaction.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let from = version(conn)?;
    if from >= LATEST {
        return Ok(());
    }
    let tx = conn.transaction()?;
    for step in &STEPS[from as usize..] {
        tx.execute_batch(step)?;
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {LATEST};"
    ))?;
    tx.commit()
}
