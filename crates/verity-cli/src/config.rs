//! The CLI's own environment, read here and nowhere else in the CLI (the
//! library's settings are read by `verity::VerityConfig`).

/// Whether colours are off: `NO_COLOR` present and not empty
/// (<https://no-color.org>).
pub(crate) fn no_color() -> bool {
    no_color_from(std::env::var_os("NO_COLOR").as_deref())
}

fn no_color_from(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    #[test]
    fn no_color_when_set_and_not_empty() {
        assert!(!super::no_color_from(None));
        assert!(!super::no_color_from(Some(OsStr::new(""))));
        assert!(super::no_color_from(Some(OsStr::new("1"))));
    }
}
