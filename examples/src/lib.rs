//! Runnable examples live beside this crate: see examples/README.md.
//!
//! `readme.rs` is the Rust snippet of the repository's README, compiled with
//! the other examples; a test keeps the two identical.

#[cfg(test)]
mod tests {
    /// The fenced `rust` block under `heading` in the README.
    fn readme_block(heading: &str) -> String {
        let readme = include_str!("../../README.md");
        let after = readme
            .split_once(heading)
            .map(|(_, rest)| rest)
            .unwrap_or_default();
        after
            .split_once("```rust\n")
            .and_then(|(_, rest)| rest.split_once("```"))
            .map(|(block, _)| block.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn the_readme_rust_snippet_is_the_compiled_example() {
        let block = readme_block("### From Rust");
        assert!(
            block.contains("Verity::open_with"),
            "README block not found"
        );
        assert_eq!(
            block,
            include_str!("../readme.rs"),
            "README.md's Rust snippet and examples/readme.rs differ: copy one onto the other"
        );
    }
}
