//! Span vectors pooled from the text's own pass ("late chunking",
//! [`SpanMode::Pooled`](verity_core::SpanMode::Pooled)).
//!
//! A chunk is tokenised once. Its first window (`[CLS]`, the first
//! `max_len - 2` word pieces, `[SEP]`) is exactly what [`Embedder::embed`]
//! reads, so the chunk's own vector is unchanged; each sentence inside that
//! window gets the mean of its word pieces' output states — read in the
//! context of the whole window instead of alone. Sentences past the window
//! get further windows, each starting at the first sentence not yet covered
//! and repeating the context prefix (title and heading path) when it is short.
//! Every word piece of the chunk is thus run through the model about once,
//! where embedding each sentence separately runs it twice (chunk + sentence)
//! plus the prefix once per sentence.
//!
//! [`Embedder::embed`]: verity_core::Embedder::embed

use std::ops::Range;

/// Where one span's vector is pooled from: a window of its item and the rows
/// (output positions, `[CLS]` = 0) of its word pieces there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpanRows {
    pub window: usize,
    pub rows: Range<usize>,
}

/// The model inputs of one item and where its spans are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemPlan {
    /// Token ids of each window, `[CLS]` and `[SEP]` included; window 0 is the text's.
    pub windows: Vec<Vec<u32>>,
    /// Per span, in order; `None` for a span with no word piece (its vector
    /// is then the text's).
    pub spans: Vec<Option<SpanRows>>,
}

/// The special tokens that frame a window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub cls: u32,
    pub sep: u32,
    /// Longest window, `[CLS]`/`[SEP]` included (at least 3).
    pub max_len: usize,
}

/// Plan the windows of one text. `ids`/`starts` are its word pieces (no
/// special tokens) and their byte start offsets, in order; `context` is the
/// byte length of the context prefix; `spans` are byte ranges of the text.
pub(crate) fn plan(
    ids: &[u32],
    starts: &[usize],
    context: usize,
    spans: &[Range<usize>],
    frame: Frame,
) -> ItemPlan {
    let budget = frame.max_len.saturating_sub(2).max(1);
    let n = ids.len().min(starts.len());
    let framed = |body: &[u32]| {
        let mut w = Vec::with_capacity(body.len() + 2);
        w.push(frame.cls);
        w.extend_from_slice(body);
        w.push(frame.sep);
        w
    };
    let first_end = n.min(budget);
    let mut windows = vec![framed(ids.get(..first_end).unwrap_or_default())];
    // The current window: content tokens [start, end) and the row of token `start`.
    let (mut start, mut end, mut row0) = (0usize, first_end, 1usize);
    let ctx_tokens = starts.partition_point(|&s| s < context).min(n);
    // A long prefix would crowd out the content: repeat it only when short.
    let ctx_keep = if ctx_tokens <= budget / 2 {
        ctx_tokens
    } else {
        0
    };
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        let a = starts.partition_point(|&s| s < span.start).min(n);
        let b = starts.partition_point(|&s| s < span.end).min(n);
        if a >= b {
            out.push(None);
            continue;
        }
        // A span past the window opens a new one starting at it, unless it
        // already starts the current window (it is longer than a window).
        if !(a >= start && b <= end) && a != start {
            // Context, then as much content as fits.
            start = a;
            end = n.min(a + budget.saturating_sub(ctx_keep).max(1));
            let mut body = Vec::with_capacity(ctx_keep + end - start);
            body.extend_from_slice(ids.get(..ctx_keep).unwrap_or_default());
            body.extend_from_slice(ids.get(start..end).unwrap_or_default());
            windows.push(framed(&body));
            row0 = 1 + ctx_keep;
        }
        let last = b.min(end);
        out.push(Some(SpanRows {
            window: windows.len() - 1,
            rows: row0 + (a - start)..row0 + (last - start),
        }));
    }
    ItemPlan {
        windows,
        spans: out,
    }
}

/// Mean of `rows` of a `(len, dim)` row-major matrix, L2-normalised.
pub(crate) fn mean_rows(states: &[f32], dim: usize, rows: Range<usize>) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    let mut kept = 0f32;
    for r in rows {
        if let Some(row) = states.get(r * dim..(r + 1) * dim) {
            v.iter_mut().zip(row).for_each(|(a, x)| *a += x);
            kept += 1.0;
        }
    }
    let kept = kept.max(1.0);
    v.iter_mut().for_each(|a| *a /= kept);
    verity_core::embed::l2_normalize(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: Frame = Frame {
        cls: 101,
        sep: 102,
        max_len: 8,
    };

    /// Tokens 10, 11, ... one per 2-byte word ("w " repeated).
    fn tokens(n: usize) -> (Vec<u32>, Vec<usize>) {
        (
            (0..n as u32).map(|i| 10 + i).collect(),
            (0..n).map(|i| i * 2).collect(),
        )
    }

    #[test]
    fn spans_inside_the_first_window_read_it() {
        let (ids, starts) = tokens(5);
        let p = plan(&ids, &starts, 0, &[0..4, 4..10], FRAME);
        assert_eq!(p.windows, vec![vec![101, 10, 11, 12, 13, 14, 102]]);
        assert_eq!(
            p.spans,
            vec![
                Some(SpanRows {
                    window: 0,
                    rows: 1..3
                }),
                Some(SpanRows {
                    window: 0,
                    rows: 3..6
                })
            ]
        );
    }

    #[test]
    fn later_spans_open_windows_with_the_context_repeated() {
        // 10 tokens; context = the first token (2 bytes); budget 6 per window.
        let (ids, starts) = tokens(10);
        let spans = [2..8, 8..14, 14..20];
        let p = plan(&ids, &starts, 2, &spans, FRAME);
        // Window 0: tokens 0..6. Span 1 = tokens 1..4, span 2 = 4..7 (crosses the end).
        assert_eq!(p.windows[0], vec![101, 10, 11, 12, 13, 14, 15, 102]);
        assert_eq!(
            p.spans[0],
            Some(SpanRows {
                window: 0,
                rows: 2..5
            })
        );
        // Window 1: context token 10, then tokens 4..9 (budget 6 - 1 context).
        assert_eq!(p.windows[1], vec![101, 10, 14, 15, 16, 17, 18, 102]);
        assert_eq!(
            p.spans[1],
            Some(SpanRows {
                window: 1,
                rows: 2..5
            })
        );
        // Span 3 = tokens 7..10: token 9 is past window 1 → a third window.
        assert_eq!(p.windows[2], vec![101, 10, 17, 18, 19, 102]);
        assert_eq!(
            p.spans[2],
            Some(SpanRows {
                window: 2,
                rows: 2..5
            })
        );
    }

    #[test]
    fn a_span_longer_than_a_window_is_cut_and_empty_spans_fall_back() {
        let (ids, starts) = tokens(20);
        let p = plan(&ids, &starts, 0, &[7..7, 0..40], FRAME);
        assert_eq!(p.spans[0], None);
        assert_eq!(
            p.spans[1],
            Some(SpanRows {
                window: 0,
                rows: 1..7
            })
        );
        assert_eq!(p.windows.len(), 1);
        // Starting later, it opens a window of its own, cut at the budget.
        let p = plan(&ids, &starts, 0, &[0..4, 4..40], FRAME);
        assert_eq!(
            p.spans[1],
            Some(SpanRows {
                window: 1,
                rows: 1..7
            })
        );
        assert_eq!(p.windows[1], vec![101, 12, 13, 14, 15, 16, 17, 102]);
    }

    #[test]
    fn a_long_context_is_not_repeated() {
        let (ids, starts) = tokens(12);
        // Context = 4 tokens > budget / 2 = 3.
        let p = plan(&ids, &starts, 8, &[8..12, 16..22], FRAME);
        assert_eq!(p.windows[1], vec![101, 18, 19, 20, 21, 102]);
        assert_eq!(
            p.spans[1],
            Some(SpanRows {
                window: 1,
                rows: 1..4
            })
        );
    }

    #[test]
    fn mean_rows_pools_and_normalises() {
        let states = [1.0, 0.0, 3.0, 0.0, 0.0, 5.0];
        let v = mean_rows(&states, 2, 0..2);
        assert!((v[0] - 1.0).abs() < 1e-6 && v[1].abs() < 1e-6);
        let v = mean_rows(&states, 2, 1..3);
        assert!((v[0] - 3.0 / 34f32.sqrt()).abs() < 1e-6);
    }
}
