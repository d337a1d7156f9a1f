//! Integration tests of `verity-net`, linked into one test binary.

mod status;
