//! Connection handling: one writer connection, a small pool of readers (WAL).

use std::path::{Path, PathBuf};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
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

/// Most reader connections open at once. Readers beyond it wait for one to
/// be returned: opening a connection (schema parse, pragmas, FTS5 config,
/// a cold page cache) costs far more than a search, and under load more
/// concurrent readers than cores only queue on the CPU anyway.
const MAX_READERS: usize = 8;
/// How long a reader waits for a pooled connection before opening its own.
const READER_WAIT: Duration = Duration::from_millis(200);

/// Idle reader connections and how many exist (idle or in use).
#[derive(Default)]
struct Readers {
    idle: Vec<Connection>,
    open: usize,
}

/// Connections to one database.
pub(crate) struct Db {
    path: Option<PathBuf>,
    busy_timeout: Duration,
    writer: Mutex<Connection>,
    readers: Mutex<Readers>,
    returned: Condvar,
    /// Async admission to the readers: callers beyond [`MAX_READERS`] wait
    /// as futures, not as blocking threads parked on the pool.
    read_slots: tokio::sync::Semaphore,
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
            readers: Mutex::new(Readers::default()),
            returned: Condvar::new(),
            read_slots: tokio::sync::Semaphore::new(MAX_READERS),
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
            readers: Mutex::new(Readers::default()),
            returned: Condvar::new(),
            read_slots: tokio::sync::Semaphore::new(MAX_READERS),
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

    /// Wait for a reader slot before handing a read to a blocking thread
    /// (the slot is held until the permit drops).
    pub(crate) async fn read_slot(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.read_slots.acquire().await.ok()
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
        let mut lease = Lease {
            db: self,
            conn: Some(self.checkout(path)?),
        };
        match lease.conn.as_mut() {
            Some(c) => {
                let out = f(c);
                // An interrupted read (cancelled request) may leave its
                // transaction open: never hand such a reader back.
                if !c.is_autocommit() {
                    let _ = c.execute_batch("ROLLBACK");
                }
                out
            }
            None => Err(StoreError::Backend("reader connection missing".into()).into()),
        }
    }

    /// An idle reader, a new one while fewer than [`MAX_READERS`] exist, or
    /// the next one returned. After [`READER_WAIT`] without one (a reader
    /// held across a nested read, a long scan) a new connection is opened
    /// anyway: waiting is an optimisation, never a deadlock.
    fn checkout(&self, path: &Path) -> Result<Connection, Error> {
        let mut pool = self.readers.lock();
        let mut waited = false;
        loop {
            if let Some(c) = pool.idle.pop() {
                return Ok(c);
            }
            if pool.open < MAX_READERS || waited {
                pool.open += 1;
                drop(pool);
                let opened = Self::connect(path, self.busy_timeout).and_then(|c| {
                    c.pragma_update(None, "query_only", true).map_err(db_err)?;
                    // A read whose request was given up (timeout, client
                    // gone) is interrupted: SQLite asks every ~10k VM steps.
                    c.progress_handler(10_000, Some(verity_core::cancel::is_cancelled));
                    Ok(c)
                });
                if opened.is_err() {
                    let mut pool = self.readers.lock();
                    pool.open = pool.open.saturating_sub(1);
                }
                return opened;
            }
            waited = self.returned.wait_for(&mut pool, READER_WAIT).timed_out();
        }
    }
}

/// Run `f` inside one read transaction on `c` (one snapshot for all its
/// queries). `BEGIN` and `COMMIT` are cached statements: `Connection::transaction`
/// parses both anew on every call, a visible share of a 0.1 ms search.
pub(crate) fn in_snapshot<T>(
    c: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, Error>,
) -> Result<T, Error> {
    c.prepare_cached("BEGIN")
        .and_then(|mut st| st.execute([]))
        .map_err(db_err)?;
    let out = f(c);
    let end = c.prepare_cached("COMMIT").and_then(|mut st| st.execute([]));
    if let Err(e) = end {
        if !c.is_autocommit() {
            let _ = c.execute_batch("ROLLBACK");
        }
        // The reads succeeded; a failed end of a read transaction only matters
        // when nothing else went wrong.
        if out.is_ok() {
            return Err(db_err(e));
        }
    }
    out
}

/// A reader checked out of the pool; returned on drop (also when the
/// closure panics, so the pool never shrinks to a deadlock).
struct Lease<'a> {
    db: &'a Db,
    conn: Option<Connection>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut pool = self.db.readers.lock();
        match self.conn.take() {
            Some(c) if !std::thread::panicking() && pool.idle.len() < MAX_READERS => {
                pool.idle.push(c)
            }
            _ => pool.open = pool.open.saturating_sub(1),
        }
        drop(pool);
        self.db.returned.notify_one();
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
