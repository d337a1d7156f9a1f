//! [`StopMatcher`]: cut streamed text at user stop strings without ever
//! emitting part of a stop string.

/// Incremental stop-string detector for streamed text.
///
/// Text that could be the beginning of a stop string is held back until it
/// is clear either way, so the emitted pieces concatenate to exactly the
/// text before the first stop string.
#[derive(Debug, Clone, Default)]
pub struct StopMatcher {
    stops: Vec<String>,
    held: String,
    stopped: bool,
}

impl StopMatcher {
    /// A matcher for these stop strings (empty strings are ignored).
    pub fn new<I, S>(stops: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let stops = stops
            .into_iter()
            .map(Into::into)
            .filter(|s: &String| !s.is_empty())
            .collect();
        Self {
            stops,
            held: String::new(),
            stopped: false,
        }
    }

    /// `true` once a stop string was seen; later input is discarded.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Feed newly generated text; returns the text that is safe to emit now.
    pub fn push(&mut self, text: &str) -> String {
        if self.stopped {
            return String::new();
        }
        self.held.push_str(text);
        if let Some(cut) = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min()
        {
            self.stopped = true;
            let mut out = std::mem::take(&mut self.held);
            out.truncate(cut);
            return out;
        }
        let keep = self.partial_suffix_len();
        let split = self.held.len() - keep;
        let rest = self.held.split_off(split);
        std::mem::replace(&mut self.held, rest)
    }

    /// Generation ended: release any held-back text.
    pub fn finish(&mut self) -> String {
        if self.stopped {
            return String::new();
        }
        std::mem::take(&mut self.held)
    }

    /// Length in bytes of the longest suffix of `held` that is a proper prefix of a stop string.
    fn partial_suffix_len(&self) -> usize {
        let mut best = 0;
        for stop in &self.stops {
            for (i, _) in stop.char_indices().skip(1) {
                // `stop[..i]` is a proper prefix ending on a char boundary.
                if i > best && self.held.ends_with(stop.get(..i).unwrap_or_default()) {
                    best = i;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stops: &[&str], pieces: &[&str]) -> (String, bool) {
        let mut m = StopMatcher::new(stops.iter().copied());
        let mut out = String::new();
        for p in pieces {
            out.push_str(&m.push(p));
        }
        out.push_str(&m.finish());
        (out, m.is_stopped())
    }

    #[test]
    fn no_stops_passes_through() {
        assert_eq!(run(&[], &["ab", "c"]), ("abc".into(), false));
    }

    #[test]
    fn stop_split_across_pieces() {
        assert_eq!(
            run(&["END"], &["hello E", "N", "D tail"]),
            ("hello ".into(), true)
        );
    }

    #[test]
    fn false_prefix_is_released() {
        assert_eq!(
            run(&["END"], &["hello E", "Nx"]),
            ("hello ENx".into(), false)
        );
        let mut m = StopMatcher::new(["END"]);
        assert_eq!(m.push("abc E"), "abc ");
        assert_eq!(m.push("Z"), "EZ");
    }

    #[test]
    fn earliest_stop_wins_and_unicode_is_safe() {
        assert_eq!(run(&["é!", "b"], &["aé", "!b"]), ("a".into(), true));
        assert_eq!(run(&["\n\n"], &["line\n", "\nnext"]), ("line".into(), true));
    }
}
