//! The one integration test binary of verity-research.
mod common;
mod end_to_end;
mod fragments;
mod llm_path;
mod local_model;
