//! Near-duplicate fingerprints: a 64-bit SimHash (Charikar) over word
//! 3-shingles of the folded text, and an exact hash of the folded words.
//!
//! The same article republished elsewhere (other boilerplate, a changed
//! sentence, another extraction of the same page) lands within a few bits;
//! unrelated articles sit around 32 bits apart. The stores index the hash
//! (SQLite: 16-bit blocks probed with one-bit variants; Redis: 8-bit bands),
//! so every hash within [`verity_core::watch::SIMHASH_MAX_DISTANCE`] bits is
//! found without a scan.

use verity_core::hash::sha1_hex;

use crate::text::{fold, words};

/// Fewer words than this give no fingerprint (too little text to compare).
pub const MIN_WORDS: usize = 40;
/// Words of a shingle.
const SHINGLE: usize = 3;

/// Fingerprints of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// 64-bit SimHash.
    pub simhash: u64,
    /// SHA-1 of the folded words joined by single spaces.
    pub sha1: String,
    /// Number of words.
    pub words: usize,
}

/// Fingerprint `text`; `None` when it has fewer than [`MIN_WORDS`] words.
pub fn fingerprint(text: &str) -> Option<Fingerprint> {
    let folded = fold(text);
    let ws: Vec<&str> = words(&folded).collect();
    if ws.len() < MIN_WORDS {
        return None;
    }
    let mut acc = [0i64; 64];
    for shingle in ws.windows(SHINGLE) {
        let mut h = FNV_OFFSET;
        for w in shingle {
            h = fnv1a(h, w.as_bytes());
            h = fnv1a(h, b" ");
        }
        let h = mix(h);
        for (bit, a) in acc.iter_mut().enumerate() {
            if (h >> bit) & 1 == 1 {
                *a += 1;
            } else {
                *a -= 1;
            }
        }
    }
    let simhash = acc
        .iter()
        .enumerate()
        .fold(0u64, |s, (bit, a)| if *a > 0 { s | (1 << bit) } else { s });
    Some(Fingerprint {
        simhash,
        sha1: sha1_hex(ws.join(" ").as_bytes()),
        words: ws.len(),
    })
}

/// Number of differing bits.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a: stable across builds and platforms (the hash is stored).
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// SplitMix64 finaliser: spreads FNV's weak high bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Ollama 0.5 is our biggest update yet. Inference is between forty and fifty percent faster on Apple Silicon, new quantisation options reduce memory use, and the server now streams tool calls. We also fixed dozens of bugs reported by the community, improved model loading times on Linux and Windows, and added support for structured outputs with JSON schemas so that applications can rely on the shape of every answer.";

    #[test]
    fn stable_and_tolerant() {
        let a = fingerprint(TEXT).unwrap();
        // Stored values must not change between builds.
        assert_eq!(a, fingerprint(TEXT).unwrap());
        // Case, accents and line breaks do not change the fingerprint.
        let b = fingerprint(&TEXT.to_uppercase().replace(". ", ".\n\n")).unwrap();
        assert_eq!(a, b);
        let c = fingerprint(&TEXT.replace("dozens of", "many")).unwrap();
        assert_ne!(a.sha1, c.sha1);
        assert!(distance(a.simhash, c.simhash) < 32);
        assert!(fingerprint("too short").is_none());
    }
}
