//! A throw-away local Redis server with the search and JSON modules, for
//! tests and benchmarks (installed by `scripts/redis.sh`).
//!
//! Binaries are found through `VERITY_REDIS_SERVER` (the `redis-server`
//! executable) and `VERITY_REDIS_MODULES` (a directory holding
//! `redisearch.so` and `rejson.so`, or a `:`-separated list of module files),
//! else in `${VERITY_CACHE:-~/.cache/verity}/redis/`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the server binary and its modules are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisBinaries {
    /// `redis-server`.
    pub server: PathBuf,
    /// Module files loaded with `--loadmodule`.
    pub modules: Vec<PathBuf>,
}

impl RedisBinaries {
    /// Locate the binaries (see the module docs); an error says what is missing.
    pub fn locate() -> Result<Self, String> {
        let cache = std::env::var_os("VERITY_CACHE")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/verity")))
            .unwrap_or_else(|| PathBuf::from(".cache/verity"));
        let server = std::env::var_os("VERITY_REDIS_SERVER")
            .map(PathBuf::from)
            .unwrap_or_else(|| cache.join("redis/bin/redis-server"));
        let modules_spec = std::env::var("VERITY_REDIS_MODULES")
            .unwrap_or_else(|_| cache.join("redis/modules").to_string_lossy().into_owned());
        let spec = Path::new(&modules_spec);
        let modules: Vec<PathBuf> = if spec.is_dir() {
            vec![spec.join("redisearch.so"), spec.join("rejson.so")]
        } else {
            modules_spec
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect()
        };
        if !server.is_file() {
            return Err(format!(
                "no redis-server at {} (run scripts/redis.sh, or set VERITY_REDIS_SERVER)",
                server.display()
            ));
        }
        if let Some(m) = modules.iter().find(|m| !m.is_file()) {
            return Err(format!(
                "no Redis module at {} (run scripts/redis.sh, or set VERITY_REDIS_MODULES)",
                m.display()
            ));
        }
        if modules.is_empty() {
            return Err("no Redis modules configured (VERITY_REDIS_MODULES)".into());
        }
        Ok(Self { server, modules })
    }
}

/// A running `redis-server` on 127.0.0.1, killed on drop.
#[derive(Debug)]
pub struct RedisServer {
    bins: RedisBinaries,
    port: u16,
    dir: tempfile_dir::Dir,
    extra: Vec<String>,
    child: Option<Child>,
}

mod tempfile_dir {
    use std::path::{Path, PathBuf};

    /// A directory removed on drop.
    #[derive(Debug)]
    pub struct Dir(PathBuf);

    impl Dir {
        pub fn new(port: u16) -> std::io::Result<Self> {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let p = std::env::temp_dir().join(format!(
                "verity-redis-{}-{port}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&p)?;
            Ok(Self(p))
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn ping(port: u16) -> bool {
    let Ok(mut s) =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200))
    else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"*1\r\n$4\r\nPING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 64];
    matches!(s.read(&mut buf), Ok(n) if buf.get(..n).is_some_and(|b| b.starts_with(b"+PONG")))
}

impl RedisServer {
    /// Start a server without persistence on a free port.
    pub fn start() -> Result<Self, String> {
        Self::start_with(&[])
    }

    /// Start a server with extra `redis-server` arguments (e.g. `--appendonly yes`).
    /// Its working directory (`--dir`) is a fresh temporary directory.
    pub fn start_with(extra: &[&str]) -> Result<Self, String> {
        let bins = RedisBinaries::locate()?;
        let port = free_port().map_err(|e| format!("no free port: {e}"))?;
        let dir = tempfile_dir::Dir::new(port).map_err(|e| format!("no temp dir: {e}"))?;
        let mut s = Self {
            bins,
            port,
            dir,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            child: None,
        };
        s.spawn()?;
        Ok(s)
    }

    /// Start a server, or print a loud skip message and return `None` (tests).
    /// With `VERITY_REQUIRE_REDIS=1` a server that cannot start is an error (CI).
    pub fn start_or_skip(test: &str, extra: &[&str]) -> Option<Self> {
        match Self::start_with(extra) {
            Ok(s) => Some(s),
            Err(e) => {
                if std::env::var("VERITY_REQUIRE_REDIS").is_ok_and(|v| v == "1") {
                    eprintln!("{test}: VERITY_REQUIRE_REDIS=1 but Redis cannot start: {e}");
                    std::process::exit(1);
                }
                eprintln!("\n######## SKIPPED {test}: cannot start a local Redis with search+JSON: {e} ########\n");
                None
            }
        }
    }

    fn spawn(&mut self) -> Result<(), String> {
        let mut cmd = Command::new(&self.bins.server);
        cmd.arg("--port")
            .arg(self.port.to_string())
            .arg("--bind")
            .arg("127.0.0.1")
            .arg("--save")
            .arg("")
            .arg("--appendonly")
            .arg("no")
            .arg("--dir")
            .arg(self.dir.path());
        for m in &self.bins.modules {
            cmd.arg("--loadmodule").arg(m);
        }
        cmd.arg("--daemonize").arg("no").args(&self.extra);
        let log =
            std::fs::File::create(self.dir.path().join("redis.log")).map_err(|e| e.to_string())?;
        let child = cmd
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.bins.server.display()))?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(status)) = c.try_wait() {
                    self.child = None;
                    return Err(format!(
                        "redis-server exited with {status}: {}",
                        self.log_tail()
                    ));
                }
            }
            if ping(self.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        Err(format!(
            "redis-server did not answer within 20 s: {}",
            self.log_tail()
        ))
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's working directory (AOF/RDB files, `redis.log`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Kill the server abruptly (SIGKILL) and wait for it.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start the server again on the same port and directory (after [`Self::kill`]).
    pub fn restart(&mut self) -> Result<(), String> {
        self.kill();
        self.spawn()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
