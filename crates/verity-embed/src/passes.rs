//! How texts are grouped into forward passes: by count and by word pieces.
//!
//! A pass of many long texts is slower per word piece than a pass of a few:
//! its activations (the intermediate product alone is 6 KB per word piece
//! for all-MiniLM-L6-v2) outgrow the caches. On the 64 SciFact abstracts of
//! `examples/throughput.rs` (230 word pieces each), 8 texts per pass
//! (~1,840 word pieces) embedded 10–20 % faster than 32 or 64 on both the
//! AVX-512 and the AVX2 machine (docs/benchmarks.d/embed.md), while short
//! texts (a title and a sentence, ~60 word pieces) lose nothing by sharing a
//! pass with 30 others. So a pass is capped in word pieces as well as in
//! texts.

/// Default cap on the word pieces of one forward pass (a text longer than
/// this gets a pass of its own).
pub(crate) const PASS_TOKENS: usize = 2048;

/// One single-thread rayon pool ("lane") per thread of the global pool,
/// built once: passes given one lane each run side by side with no
/// fork–join inside them (`LocalEmbedder`'s pooled passes). Fewer lanes
/// when a pool cannot be built.
pub(crate) fn lanes() -> &'static [rayon::ThreadPool] {
    static LANES: std::sync::OnceLock<Vec<rayon::ThreadPool>> = std::sync::OnceLock::new();
    LANES.get_or_init(|| {
        (0..rayon::current_num_threads().max(1))
            .filter_map(|i| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .thread_name(move |_| format!("verity-embed-lane-{i}"))
                    .build()
                    .ok()
            })
            .collect()
    })
}

/// Split `order` into consecutive runs of at most `max_texts` items and, but
/// for a run of one, at most `max_tokens` word pieces (`len` of each item).
pub(crate) fn passes<T>(
    order: &[T],
    len: impl Fn(&T) -> usize,
    max_texts: usize,
    max_tokens: usize,
) -> Vec<&[T]> {
    let mut out = Vec::new();
    let (mut start, mut tokens) = (0, 0usize);
    for (i, item) in order.iter().enumerate() {
        let l = len(item);
        if i > start && (i - start >= max_texts || tokens.saturating_add(l) > max_tokens) {
            out.push(&order[start..i]);
            (start, tokens) = (i, 0);
        }
        tokens = tokens.saturating_add(l);
    }
    if start < order.len() {
        out.push(&order[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_respect_both_caps_and_keep_order() {
        let lens = [300, 250, 250, 100, 60, 60, 60, 10];
        let got = passes(&lens, |&l| l, 3, 512);
        assert_eq!(
            got,
            vec![
                &[300][..],
                &[250, 250][..],
                &[100, 60, 60][..],
                &[60, 10][..]
            ]
        );
        // A text over the word-piece cap still gets a pass.
        assert_eq!(
            passes(&[5000, 10], |&l| l, 8, 2048),
            vec![&[5000][..], &[10][..]]
        );
        // No cap in word pieces: count only, as before.
        assert_eq!(passes(&lens, |&l| l, 4, usize::MAX).len(), 2);
        assert!(passes(&[] as &[usize], |&l| l, 4, 100).is_empty());
    }
}
