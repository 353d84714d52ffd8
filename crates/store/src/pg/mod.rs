//! The PostgreSQL backend, for a team's shared store: `--db postgres://…`.
//!
//! The tables are SQLite's (migrate.rs writes both); ids come from identity
//! sequences, so several machines writing at once never collide, and every
//! write of several rows is one transaction. The schema's version and
//! toll's mark live in a one-row table `toll_schema`; creating or migrating
//! the tables holds an advisory lock, so two machines opening a new
//! database at once do not both create them. The connection is plain TCP
//! or a unix socket (`NoTls`): TLS is not supported, and a URL that
//! requires it is refused before connecting.
//!
//! This module connects and prepares the schema; the statements behind
//! each [`Backend`](crate::backend::Backend) call are in `queries`.

mod queries;

use crate::error::StoreError;
use crate::migrate::{self, Dialect, APPLICATION_ID};
use postgres::config::SslMode;
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long to wait for a server that does not answer (a down host drops
/// packets instead of refusing them).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// An open PostgreSQL store.
pub(crate) struct Postgres {
    client: Mutex<Client>,
    /// The URL as given, with any password hidden.
    url: String,
}

/// `url` with its password (in the user part or a `password=` parameter)
/// replaced by `***`, for messages.
pub(crate) fn redact(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(start) = out.find("://").map(|i| i + 3) {
        let end = out[start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| start + i);
        if let Some(at) = out[start..end].rfind('@').map(|i| start + i) {
            if let Some(colon) = out[start..at].find(':').map(|i| start + i) {
                out.replace_range(colon + 1..at, "***");
            }
        }
    }
    if let Some(p) = out.find("password=").map(|i| i + "password=".len()) {
        let end = out[p..].find('&').map_or(out.len(), |i| p + i);
        out.replace_range(p..end, "***");
    }
    out
}

/// An error's text with its causes, e.g. "error connecting to server:
/// Connection refused (os error 111)"; a server's error is its message.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

impl Postgres {
    /// Connect to `url`, check that the database is toll's (or empty), and
    /// create or migrate the tables. With `create` false an empty database
    /// is `NoTables` and nothing is created.
    pub fn open(url: &str, create: bool) -> Result<Postgres, StoreError> {
        let shown = redact(url);
        let bad = |detail: &str| StoreError::BadUrl {
            url: shown.clone(),
            detail: detail.to_string(),
        };
        let mut config: Config = url.parse().map_err(|e: postgres::Error| {
            bad(&describe(&e).replace("invalid connection string: ", ""))
        })?;
        match config.get_ssl_mode() {
            SslMode::Disable | SslMode::Prefer => {}
            mode => {
                return Err(StoreError::TlsUnsupported {
                    url: shown,
                    mode: format!("{mode:?}").to_ascii_lowercase(),
                })
            }
        }
        if config.get_hosts().is_empty() {
            return Err(bad("no host"));
        }
        if config.get_dbname().is_none_or(str::is_empty) {
            return Err(bad("no database name after the host"));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("toll");
        let client = config.connect(NoTls).map_err(|e| {
            if e.as_db_error().is_some() || e.to_string().starts_with("authentication error") {
                StoreError::Refused {
                    url: shown.clone(),
                    cause: describe(&e),
                }
            } else {
                StoreError::Unreachable {
                    url: shown.clone(),
                    cause: describe(&e),
                }
            }
        })?;
        let db = Postgres {
            client: Mutex::new(client),
            url: shown,
        };
        db.prepare_schema(create)?;
        Ok(db)
    }

    /// The URL, password hidden.
    pub fn display_url(&self) -> &str {
        &self.url
    }

    fn client(&self) -> MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn err(&self, e: postgres::Error) -> StoreError {
        if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE)
            || e.code() == Some(&SqlState::READ_ONLY_SQL_TRANSACTION)
        {
            return StoreError::ReadOnly {
                path: PathBuf::from(&self.url),
            };
        }
        if e.is_closed() || e.as_db_error().is_none() && e.to_string().contains("communicating") {
            return StoreError::Unreachable {
                url: self.url.clone(),
                cause: describe(&e),
            };
        }
        StoreError::Postgres {
            url: self.url.clone(),
            cause: describe(&e),
        }
    }

    /// Check the mark and version, and create or migrate the tables, in
    /// one transaction under an advisory lock.
    fn prepare_schema(&self, create: bool) -> Result<(), StoreError> {
        let mut client = self.client();
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&APPLICATION_ID])
            .map_err(|e| self.err(e))?;
        let marked: bool = tx
            .query_one(
                "SELECT count(*) > 0 FROM pg_catalog.pg_tables
                 WHERE schemaname = current_schema() AND tablename = 'toll_schema'",
                &[],
            )
            .map_err(|e| self.err(e))?
            .get(0);
        let found = if marked {
            let row = tx
                .query_opt("SELECT application, version FROM toll_schema", &[])
                .map_err(|e| self.err(e))?;
            match row {
                Some(r) if r.get::<_, String>(0) == "toll" => r.get::<_, i64>(1),
                _ => {
                    return Err(StoreError::NotTollDatabase {
                        url: self.url.clone(),
                    })
                }
            }
        } else {
            let tables: i64 = tx
                .query_one(
                    "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
                    &[],
                )
                .map_err(|e| self.err(e))?
                .get(0);
            if tables > 0 {
                return Err(StoreError::NotTollDatabase {
                    url: self.url.clone(),
                });
            }
            if !create {
                return Err(StoreError::NoTables {
                    url: self.url.clone(),
                });
            }
            0
        };
        if found > migrate::LATEST {
            return Err(StoreError::TooNew {
                path: PathBuf::from(&self.url),
                found,
                known: migrate::LATEST,
            });
        }
        if found == migrate::LATEST {
            return Ok(());
        }
        for step in migrate::steps(Dialect::Postgres, found) {
            tx.batch_execute(&step).map_err(|e| self.err(e))?;
        }
        if marked {
            tx.execute("UPDATE toll_schema SET version = $1", &[&migrate::LATEST])
                .map_err(|e| self.err(e))?;
        } else {
            tx.batch_execute(
                "CREATE TABLE toll_schema (application TEXT NOT NULL, version BIGINT NOT NULL)",
            )
            .map_err(|e| self.err(e))?;
            tx.execute(
                "INSERT INTO toll_schema (application, version) VALUES ('toll', $1)",
                &[&migrate::LATEST],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            redact("postgres://ann:s3cret@db.example:5432/toll"),
            "postgres://ann:***@db.example:5432/toll"
        );
        assert_eq!(
            redact("postgresql://ann@h/toll?password=x&sslmode=disable"),
            "postgresql://ann@h/toll?password=***&sslmode=disable"
        );
        assert_eq!(redact("postgres://h/db"), "postgres://h/db");
    }
}
