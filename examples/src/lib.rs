//! Runnable examples live beside this crate: see examples/README.md.
