//! Dumps of a [`DenseIndex`]: generation-named files committed by renaming a
//! checksummed sidecar, and their verified loading (see the module above).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use hnsw_rs::prelude::{AnnT, HnswIo};
use verity_core::{Error, Result, StoreError};

use super::{
    corrupt, new_graph, panic_message, store_err, CosineDot, DenseIndex, Graph, HnswParams, Slot,
};
use crate::quantized::QuantizedVectors;

impl DenseIndex {
    /// Write the index to `dir` as generation `generation`, atomically: data files are written
    /// under generation-specific names in a staging folder, moved into `dir`, and committed by
    /// renaming the sidecar `<basename>.hnsw.meta`; files of older generations are then removed.
    pub fn dump(&self, dir: &Path, basename: &str, generation: u64) -> Result<()> {
        check_basename(basename)?;
        std::fs::create_dir_all(dir).map_err(|e| io_err("create", dir, &e))?;
        let stage = dir.join(format!(
            ".{basename}.hnsw.tmp-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&stage).map_err(|e| io_err("create", &stage, &e))?;
        let res = self.dump_staged(dir, &stage, basename, generation);
        let _ = std::fs::remove_dir_all(&stage);
        res
    }

    fn dump_staged(&self, dir: &Path, stage: &Path, basename: &str, generation: u64) -> Result<()> {
        let gen_base = format!("{basename}.hnsw.g{generation}");
        let mut files: Vec<FileEntry> = Vec::new();
        if self.graph.get_nb_point() > 0 {
            let graph = &self.graph;
            let written = catch_unwind(AssertUnwindSafe(|| graph.file_dump(stage, &gen_base)))
                .map_err(|p| store_err(format!("hnsw dump failed: {}", panic_message(p.as_ref()))))?
                .map_err(|e| store_err(format!("hnsw dump failed: {e}")))?;
            if written != gen_base {
                return Err(store_err(format!(
                    "hnsw dump wrote `{written}` instead of `{gen_base}`"
                )));
            }
            for ext in ["hnsw.graph", "hnsw.data"] {
                files.push(FileEntry::of(stage, format!("{gen_base}.{ext}"))?);
            }
        } else if !self.slots.is_empty() {
            // No graph yet: the vectors themselves, per slot `dim` f32 LE.
            let name = format!("{gen_base}.vectors");
            let mut bytes = Vec::with_capacity(self.slots.len() * self.dim * 4);
            for (slot, s) in self.slots.iter().enumerate() {
                let v = s
                    .vector()
                    .ok_or_else(|| store_err(format!("slot {slot} has no vector")))?;
                for x in v {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            write_synced(&stage.join(&name), &bytes)?;
            files.push(FileEntry::of(stage, name)?);
        }
        // Slot table: per slot, the external id (u64 LE) and a live flag (u8).
        let ids_name = format!("{gen_base}.ids");
        let mut ids = Vec::with_capacity(self.slots.len() * 9);
        for s in &self.slots {
            ids.extend_from_slice(&s.id.to_le_bytes());
            ids.push(u8::from(s.live));
        }
        write_synced(&stage.join(&ids_name), &ids)?;
        files.push(FileEntry::of(stage, ids_name)?);

        let mut meta = String::new();
        let _ = writeln!(meta, "{MAGIC}");
        let _ = writeln!(meta, "generation {generation}");
        let _ = writeln!(meta, "dim {}", self.dim);
        let _ = writeln!(meta, "count {}", self.by_id.len());
        let _ = writeln!(meta, "points {}", self.slots.len());
        let _ = writeln!(meta, "m {}", self.params.m);
        let _ = writeln!(meta, "ef_construction {}", self.params.ef_construction);
        let _ = writeln!(meta, "ef_search {}", self.params.ef_search);
        let _ = writeln!(meta, "min_graph_points {}", self.params.min_graph_points);
        for f in &files {
            let _ = writeln!(meta, "file {} {} {:08x}", f.name, f.size, f.crc);
        }
        let crc = crc32fast::hash(meta.as_bytes());
        let _ = writeln!(meta, "checksum {crc:08x}");
        let meta_name = meta_file(basename);
        write_synced(&stage.join(&meta_name), meta.as_bytes())?;

        for f in &files {
            rename(&stage.join(&f.name), &dir.join(&f.name))?;
        }
        rename(&stage.join(&meta_name), &dir.join(&meta_name))?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        // Remove files of other generations of this basename.
        let prefix = format!("{basename}.hnsw.g");
        let keep: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(&prefix) && !keep.contains(&name.as_str()) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(())
    }

    /// Load the dump of `basename` from `dir`, checking it is generation `expected_generation`
    /// of vectors of `dim` components.
    ///
    /// Errors (never panics): [`StoreError::NotFound`] when there is no dump,
    /// [`StoreError::ReindexRequired`] when it is of another generation or dimension (stale),
    /// [`StoreError::Corrupt`] when a file is missing, truncated or damaged.
    pub fn load(
        dir: &Path,
        basename: &str,
        dim: usize,
        expected_generation: u64,
    ) -> Result<DenseIndex> {
        check_basename(basename)?;
        let meta_path = dir.join(meta_file(basename));
        let text = match std::fs::read(&meta_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::Store(StoreError::NotFound {
                    what: "hnsw index",
                    id: meta_path.display().to_string(),
                }));
            }
            Err(e) => return Err(io_err("read", &meta_path, &e)),
        };
        let meta = Meta::parse(&text)?;
        if meta.generation != expected_generation {
            return Err(Error::Store(StoreError::ReindexRequired {
                reason: format!(
                    "stale HNSW dump: generation {} on disk, {expected_generation} expected",
                    meta.generation
                ),
            }));
        }
        if meta.dim != dim {
            return Err(Error::Store(StoreError::ReindexRequired {
                reason: format!("HNSW dump has dimension {}, {dim} expected", meta.dim),
            }));
        }
        let gen_base = format!("{basename}.hnsw.g{}", meta.generation);
        let mut ids_bytes = None;
        let mut vector_bytes = None;
        let graphless = meta
            .files
            .iter()
            .any(|f| f.name == format!("{gen_base}.vectors"));
        for ext in if graphless {
            &["vectors", "ids"][..]
        } else if meta.points > 0 {
            &["hnsw.graph", "hnsw.data", "ids"][..]
        } else {
            &["ids"][..]
        } {
            let name = format!("{gen_base}.{ext}");
            let entry = meta
                .files
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| corrupt(format!("sidecar lists no `{name}`")))?;
            let bytes = entry.verify(dir)?;
            match *ext {
                "ids" => ids_bytes = bytes,
                "vectors" => vector_bytes = bytes,
                _ => {}
            }
        }
        let ids_bytes = ids_bytes.ok_or_else(|| corrupt("slot table not read"))?;
        if ids_bytes.len() != meta.points * 9 {
            return Err(corrupt(format!(
                "slot table has {} bytes for {} points",
                ids_bytes.len(),
                meta.points
            )));
        }
        let mut slots = Vec::with_capacity(meta.points);
        let mut by_id = HashMap::with_capacity(meta.count);
        let mut tombstones = 0;
        for (slot, rec) in ids_bytes.chunks_exact(9).enumerate() {
            let mut idb = [0u8; 8];
            idb.copy_from_slice(&rec[..8]);
            let id = u64::from_le_bytes(idb);
            let live = match rec[8] {
                0 => false,
                1 => true,
                b => return Err(corrupt(format!("slot {slot}: bad live flag {b}"))),
            };
            if live {
                if by_id.insert(id, slot).is_some() {
                    return Err(corrupt(format!("id {id} live in two slots")));
                }
            } else {
                tombstones += 1;
            }
            slots.push(Slot {
                id,
                live,
                point: None,
                raw: None,
            });
        }
        if by_id.len() != meta.count {
            return Err(corrupt(format!(
                "{} live ids, sidecar says {}",
                by_id.len(),
                meta.count
            )));
        }
        let params = HnswParams {
            m: meta.m,
            ef_construction: meta.ef_construction,
            ef_search: meta.ef_search,
            min_graph_points: meta.min_graph_points,
        }
        .sanitized();
        if let Some(bytes) = vector_bytes {
            if bytes.len() != meta.points * dim * 4 {
                return Err(corrupt(format!(
                    "vectors file has {} bytes for {} points of dimension {dim}",
                    bytes.len(),
                    meta.points
                )));
            }
            let floats: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| {
                    let mut w = [0u8; 4];
                    w.copy_from_slice(b);
                    f32::from_le_bytes(w)
                })
                .collect();
            let mut quant = QuantizedVectors::new(dim);
            for (s, v) in slots.iter_mut().zip(floats.chunks_exact(dim.max(1))) {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(corrupt(format!("vector of id {} is not finite", s.id)));
                }
                quant.push(v);
                s.raw = Some(v.into());
            }
            return Ok(DenseIndex {
                dim,
                params,
                graph: new_graph(params, 16),
                slots,
                by_id,
                tombstones,
                quant,
            });
        }
        let graph = if meta.points == 0 {
            new_graph(params, 16)
        } else {
            // hnsw_rs ties the loaded graph's lifetime to the HnswIo (for mmap); we never mmap, so
            // the loader is leaked (a few hundred bytes, no vector data) to own a 'static graph.
            let io: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(dir, &gen_base)));
            let mut g: Graph = catch_unwind(AssertUnwindSafe(move || {
                { io }.load_hnsw::<f32, CosineDot>()
            }))
            .map_err(|p| corrupt(format!("hnsw load failed: {}", panic_message(p.as_ref()))))?
            .map_err(|e| corrupt(format!("hnsw load failed: {e}")))?;
            g.set_extend_candidates(false);
            if g.get_nb_point() != meta.points {
                return Err(corrupt(format!(
                    "hnsw graph has {} points, sidecar says {}",
                    g.get_nb_point(),
                    meta.points
                )));
            }
            if g.get_point_indexation().get_data_dimension() != dim {
                return Err(corrupt("hnsw graph dimension differs from the sidecar"));
            }
            g
        };
        let mut index = DenseIndex {
            dim,
            params,
            graph,
            slots,
            by_id,
            tombstones,
            quant: QuantizedVectors::new(dim),
        };
        index.attach_points(0)?;
        Ok(index)
    }
}

/// Version 2: keys are `chunk << 12 | vector` (several vectors per chunk).
const MAGIC: &str = "verity-hnsw 2";

fn meta_file(basename: &str) -> String {
    format!("{basename}.hnsw.meta")
}

fn check_basename(basename: &str) -> Result<()> {
    let ok = !basename.is_empty()
        && !basename.starts_with('.')
        && basename
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_input(format!(
            "invalid index basename `{basename}` (use letters, digits, `_`, `-`, `.`)"
        )))
    }
}

fn io_err(what: &str, path: &Path, e: &std::io::Error) -> Error {
    store_err(format!("cannot {what} {}: {e}", path.display()))
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| io_err("rename", from, &e))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(path).map_err(|e| io_err("create", path, &e))?;
    f.write_all(bytes).map_err(|e| io_err("write", path, &e))?;
    f.sync_all().map_err(|e| io_err("sync", path, &e))
}

/// A dumped file with its size and CRC-32.
struct FileEntry {
    name: String,
    size: u64,
    crc: u32,
}

impl FileEntry {
    /// Measure `dir/name` (and fsync it, hnsw_rs only flushes).
    fn of(dir: &Path, name: String) -> Result<Self> {
        let path = dir.join(&name);
        let (size, crc, _) = checksum(&path, false)?;
        if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = f.sync_all();
        }
        Ok(Self { name, size, crc })
    }

    /// Check size and checksum of `dir/name`; returns the bytes of small files (the slot table).
    fn verify(&self, dir: &Path) -> Result<Option<Vec<u8>>> {
        let path: PathBuf = dir.join(&self.name);
        let len = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(corrupt(format!("{} is missing", path.display())));
            }
            Err(e) => return Err(io_err("stat", &path, &e)),
        };
        if len != self.size {
            return Err(corrupt(format!(
                "{} has {len} bytes, {} expected (truncated?)",
                path.display(),
                self.size
            )));
        }
        let keep = self.name.ends_with(".ids") || self.name.ends_with(".vectors");
        let (size, crc, bytes) = checksum(&path, keep)?;
        if size != self.size || crc != self.crc {
            return Err(corrupt(format!("{}: checksum mismatch", path.display())));
        }
        Ok(bytes)
    }
}

/// Size and CRC-32 of a file, optionally with its content.
fn checksum(path: &Path, keep: bool) -> Result<(u64, u32, Option<Vec<u8>>)> {
    let mut f = std::fs::File::open(path).map_err(|e| io_err("open", path, &e))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut kept = keep.then(Vec::new);
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| io_err("read", path, &e))?;
        if n == 0 {
            break;
        }
        let chunk = buf.get(..n).unwrap_or_default();
        hasher.update(chunk);
        if let Some(k) = kept.as_mut() {
            k.extend_from_slice(chunk);
        }
        size += n as u64;
    }
    Ok((size, hasher.finalize(), kept))
}

/// Parsed sidecar.
struct Meta {
    generation: u64,
    dim: usize,
    count: usize,
    points: usize,
    m: usize,
    ef_construction: usize,
    ef_search: usize,
    /// Absent from dumps written before graphless indexes: the default.
    min_graph_points: usize,
    files: Vec<FileEntry>,
}

impl Meta {
    fn parse(bytes: &[u8]) -> Result<Self> {
        let text = std::str::from_utf8(bytes).map_err(|_| corrupt("sidecar is not UTF-8"))?;
        let body_end = text
            .rfind("checksum ")
            .ok_or_else(|| corrupt("sidecar has no checksum"))?;
        let (body, tail) = text.split_at(body_end);
        let want = tail
            .trim()
            .strip_prefix("checksum ")
            .and_then(|h| u32::from_str_radix(h.trim(), 16).ok());
        if want != Some(crc32fast::hash(body.as_bytes())) {
            return Err(corrupt("sidecar checksum mismatch"));
        }
        let mut lines = body.lines();
        if lines.next() != Some(MAGIC) {
            return Err(corrupt("sidecar: unknown format"));
        }
        let mut kv: HashMap<&str, &str> = HashMap::new();
        let mut files = Vec::new();
        for line in lines {
            let (key, rest) = line
                .split_once(' ')
                .ok_or_else(|| corrupt(format!("sidecar: bad line `{line}`")))?;
            if key == "file" {
                let parts: Vec<&str> = rest.split(' ').collect();
                let [name, size, crc] = parts.as_slice() else {
                    return Err(corrupt(format!("sidecar: bad file line `{line}`")));
                };
                files.push(FileEntry {
                    name: (*name).to_string(),
                    size: size
                        .parse()
                        .map_err(|_| corrupt("sidecar: bad file size"))?,
                    crc: u32::from_str_radix(crc, 16)
                        .map_err(|_| corrupt("sidecar: bad file checksum"))?,
                });
            } else {
                kv.insert(key, rest);
            }
        }
        let num = |k: &str| -> Result<u64> {
            kv.get(k)
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| corrupt(format!("sidecar: missing or bad `{k}`")))
        };
        let size = |k: &str| -> Result<usize> {
            usize::try_from(num(k)?).map_err(|_| corrupt(format!("sidecar: `{k}` too large")))
        };
        Ok(Self {
            generation: num("generation")?,
            dim: size("dim")?,
            count: size("count")?,
            points: size("points")?,
            m: size("m")?,
            ef_construction: size("ef_construction")?,
            ef_search: size("ef_search")?,
            min_graph_points: match kv.get("min_graph_points") {
                Some(_) => size("min_graph_points")?,
                None => super::DEFAULT_MIN_GRAPH_POINTS,
            },
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_checksum_detects_edits() {
        let body = format!("{MAGIC}\ngeneration 3\ndim 4\ncount 1\npoints 1\nm 16\nef_construction 100\nef_search 50\nfile a.ids 9 0000abcd\n");
        let good = format!("{body}checksum {:08x}\n", crc32fast::hash(body.as_bytes()));
        let meta = Meta::parse(good.as_bytes());
        assert!(meta.is_ok());
        let bad = good.replace("generation 3", "generation 4");
        assert!(matches!(
            Meta::parse(bad.as_bytes()),
            Err(Error::Store(StoreError::Corrupt(_)))
        ));
        assert!(matches!(
            Meta::parse(b"\xff\xfe garbage"),
            Err(Error::Store(StoreError::Corrupt(_)))
        ));
    }

    #[test]
    fn basenames_are_checked() {
        assert!(check_basename("default").is_ok());
        assert!(check_basename("my-index_2.v1").is_ok());
        assert!(check_basename("../x").is_err());
        assert!(check_basename("").is_err());
        assert!(check_basename(".hidden").is_err());
        assert!(check_basename("a/b").is_err());
    }
}
