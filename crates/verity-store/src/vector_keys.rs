//! Keys of the dense index: a chunk may own several vectors (its own and one
//! per sentence), so a key is `chunk rowid << 12 | vector number`. Vector 0
//! is the chunk's own vector; numbers are contiguous from 0.

use crate::hnsw::DenseIndex;

const VECTOR_BITS: u32 = 12;

/// Most vectors one chunk may own (its own plus sentences).
pub(crate) const MAX_VECTORS_PER_CHUNK: usize = verity_core::validate::MAX_VECTORS_PER_CHUNK;
const _: () = assert!(MAX_VECTORS_PER_CHUNK <= 1 << VECTOR_BITS);

/// Key of vector `n` of chunk `chunk`.
pub(crate) fn key(chunk: i64, n: usize) -> u64 {
    ((chunk as u64) << VECTOR_BITS) | n as u64
}

/// The chunk a key belongs to.
pub(crate) fn chunk_of(key: u64) -> i64 {
    (key >> VECTOR_BITS) as i64
}

/// Remove every vector of `chunk` from the index.
pub(crate) fn remove_chunk(idx: &mut DenseIndex, chunk: i64) {
    for n in 0..MAX_VECTORS_PER_CHUNK {
        if !idx.remove(key(chunk, n)) {
            break;
        }
    }
}

/// Best score per chunk from vector hits sorted best first, in that order.
pub(crate) fn best_per_chunk(hits: &[(u64, f32)]) -> Vec<(i64, f32)> {
    let mut seen = std::collections::HashSet::new();
    hits.iter()
        .filter_map(|&(k, s)| {
            let c = chunk_of(k);
            seen.insert(c).then_some((c, s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_collapse() {
        assert_eq!(chunk_of(key(42, 0)), 42);
        assert_eq!(chunk_of(key(42, MAX_VECTORS_PER_CHUNK - 1)), 42);
        assert_ne!(key(42, 1), key(43, 0));
        let hits = vec![
            (key(7, 2), 0.9),
            (key(3, 0), 0.8),
            (key(7, 0), 0.7),
            (key(5, 1), 0.1),
        ];
        assert_eq!(best_per_chunk(&hits), vec![(7, 0.9), (3, 0.8), (5, 0.1)]);
    }
}
