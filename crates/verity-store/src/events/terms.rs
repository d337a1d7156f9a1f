//! Cheap exact metadata checks: when containment is decided by the posting
//! lists alone, and a fast hasher for the row-id keyed maps and sets.
//!
//! [`metadata_terms`](verity_core::events::metadata_terms) flattens an object
//! into `path=value` leaf terms. A filter's terms are always a subset of the
//! terms of a containing object (a necessary condition); for *plain* objects
//! the converse holds too, so the search needs no JSON walk per candidate:
//!
//! * the event's metadata has no arrays (`{"t": ["x"]}` also yields `t=s:x`)
//!   and no key containing `.` or `=` (`{"a.b": 1}` and `{"a": {"b": 1}}`
//!   yield the same term);
//! * the filter has no arrays, no empty objects (they yield no term), no key
//!   containing `.` or `=`, and its integers are below 2^53 in magnitude (term
//!   values go through `f64`; an event's larger integer can round onto one).
//!
//! Then a leaf path names exactly one value, string/bool/null terms are equal
//! exactly when the values are, and number terms (shortest round-trip `f64`)
//! are equal exactly when [`json_contains`](verity_core::events::json_contains)
//! says the numbers are. Hashed terms (long values) rely on SHA-1 not colliding.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::{Map, Value};

/// Multiplicative hasher for `i64` row ids (sequential integers): one
/// multiplication instead of SipHash on the hot path of every search.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(K);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        let x = (self.0 ^ n).wrapping_mul(K);
        self.0 = x ^ (x >> 29);
    }
}

/// Row id → value.
pub(crate) type IdMap<V> = HashMap<i64, V, BuildHasherDefault<IdHasher>>;
/// A set of row ids.
pub(crate) type IdSet = HashSet<i64, BuildHasherDefault<IdHasher>>;

fn plain_key(k: &str) -> bool {
    !k.contains(['.', '='])
}

/// Whether an event's metadata is plain (see the module doc).
pub(crate) fn plain_metadata(m: &Map<String, Value>) -> bool {
    fn value(v: &Value) -> bool {
        match v {
            Value::Array(_) => false,
            Value::Object(m) => m.iter().all(|(k, v)| plain_key(k) && value(v)),
            _ => true,
        }
    }
    m.iter().all(|(k, v)| plain_key(k) && value(v))
}

/// Whether a filter is plain (see the module doc).
pub(crate) fn plain_filter(m: &Map<String, Value>) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    fn value(v: &Value) -> bool {
        match v {
            Value::Array(_) => false,
            Value::Object(m) => !m.is_empty() && m.iter().all(|(k, v)| plain_key(k) && value(v)),
            Value::Number(n) if !n.is_f64() => n.as_f64().is_some_and(|f| f.abs() < EXACT),
            _ => true,
        }
    }
    m.iter().all(|(k, v)| plain_key(k) && value(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use verity_core::events::{metadata_contains, metadata_terms};

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// On plain pairs, "terms ⊆ terms" and containment agree.
    #[test]
    fn terms_decide_containment_on_plain_objects() {
        let docs = [
            json!({"a": 1, "b": {"c": "x", "d": true}, "e": null}),
            json!({"a": 1.0, "b": {"c": "y"}}),
            json!({"a": 9_007_199_254_740_993_i64, "b": "x"}),
            json!({"a": {"b": 1}}),
            json!({"a": -0.5, "s": "n:1"}),
            json!({}),
        ];
        let filters = [
            json!({"a": 1}),
            json!({"a": 1.0}),
            json!({"b": {"c": "x"}}),
            json!({"b": {"c": "x", "d": true}}),
            json!({"e": null}),
            json!({"a": 9_007_199_254_740_992_i64}),
            json!({"a": {"b": 1}}),
            json!({"a": -0.5}),
            json!({"s": "n:1"}),
            json!({"b": "x"}),
            json!({}),
        ];
        for d in &docs {
            let d = obj(d.clone());
            assert!(plain_metadata(&d));
            let dt = metadata_terms(&d);
            for f in &filters {
                let f = obj(f.clone());
                if !plain_filter(&f) {
                    continue;
                }
                let by_terms = metadata_terms(&f).iter().all(|t| dt.contains(t));
                assert_eq!(by_terms, metadata_contains(&d, &f), "{d:?} ⊇ {f:?}");
            }
        }
    }

    #[test]
    fn ambiguous_shapes_are_not_plain() {
        assert!(!plain_metadata(&obj(json!({"t": ["x"]}))));
        assert!(!plain_metadata(&obj(json!({"a.b": 1}))));
        assert!(!plain_metadata(&obj(json!({"a": {"b=s:x": 1}}))));
        assert!(!plain_filter(&obj(json!({"t": ["x"]}))));
        assert!(!plain_filter(&obj(json!({"b": {}}))));
        assert!(!plain_filter(&obj(json!({"a": 9_007_199_254_740_992_i64}))));
        assert!(plain_filter(&obj(json!({"a": 9_007_199_254_740_991_i64}))));
        assert!(plain_filter(&obj(json!({"a": {"b": "x"}, "c": 2.5}))));
    }

    #[test]
    fn id_hasher_spreads_sequential_ids() {
        let s: IdSet = (0..10_000).collect();
        assert!((0..10_000).all(|i| s.contains(&i)));
        assert!(!s.contains(&10_000));
    }
}
