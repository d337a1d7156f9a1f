//! Connection handling: one writer connection, a small pool of readers (WAL).

use std::path::{Path, PathBuf};
use std::time::Duration;

use parking_lot::Mutex;
use rusqlite::{Connection, OpenFlags};
use verity_core::{Error, StoreError};

/// Map a SQLite error to a typed store error (busy/locked are transient).
pub(crate) fn db_err(e: rusqlite::Error) -> Error {
    use rusqlite::ffi::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            StoreError::Unavailable(format!("sqlite busy: {e}")).into()
        }
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase) => {
            StoreError::Corrupt(e.to_string()).into()
        }
        _ => StoreError::Backend(format!("sqlite: {e}")).into(),
    }
}

/// Connections to one database.
pub(crate) struct Db {
    path: Option<PathBuf>,
    busy_timeout: Duration,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl Db {
    /// Open (creating) a database file in WAL mode.
    pub(crate) fn open(path: &Path, busy_timeout: Duration) -> Result<Self, Error> {
        let conn = Self::connect(path, busy_timeout)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db_err)?;
        Ok(Self {
            path: Some(path.to_path_buf()),
            busy_timeout,
            writer: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// A private in-memory database (readers share the writer connection).
    pub(crate) fn open_in_memory() -> Result<Self, Error> {
        let conn = Connection::open_in_memory().map_err(db_err)?;
        configure(&conn, Duration::from_secs(5))?;
        Ok(Self {
            path: None,
            busy_timeout: Duration::from_secs(5),
            writer: Mutex::new(conn),
            readers: Mutex::new(Vec::new()),
        })
    }

    fn connect(path: &Path, busy_timeout: Duration) -> Result<Connection, Error> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(db_err)?;
        configure(&conn, busy_timeout)?;
        Ok(conn)
    }

    /// Path of the database file (`None` in memory).
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Run `f` with the writer connection.
    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut conn = self.writer.lock();
        f(&mut conn)
    }

    /// Run `f` with a reader connection (the writer in memory).
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let Some(path) = &self.path else {
            let mut conn = self.writer.lock();
            return f(&mut conn);
        };
        let pooled = self.readers.lock().pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                let c = Self::connect(path, self.busy_timeout)?;
                c.pragma_update(None, "query_only", true).map_err(db_err)?;
                c
            }
        };
        let out = f(&mut conn);
        let mut pool = self.readers.lock();
        if pool.len() < 8 {
            pool.push(conn);
        }
        out
    }
}

fn configure(conn: &Connection, busy_timeout: Duration) -> Result<(), Error> {
    conn.busy_timeout(busy_timeout).map_err(db_err)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(db_err)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(db_err)?;
    conn.pragma_update(None, "temp_store", "MEMORY")
        .map_err(db_err)?;
    conn.pragma_update(None, "cache_size", -32_000)
        .map_err(db_err)?;
    Ok(())
}
