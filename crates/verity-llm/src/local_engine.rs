//! Which engine runs a local GGUF model: [`LocalEngine`], chosen by the
//! caller (the facade reads it from `VERITY_LLM_ENGINE` in its
//! configuration) and resolved against the build and the CPU. Compiled
//! without the `local` feature too, so that a configuration can name it.

use verity_core::{Error, Result};

/// Which engine runs a local model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LocalEngine {
    /// llama.cpp when this build has it (feature `llama-cpp`) and the CPU
    /// runs what it was compiled for, else candle.
    #[default]
    Auto,
    /// candle's quantized llama (pure Rust).
    Candle,
    /// llama.cpp (feature `llama-cpp`).
    LlamaCpp,
}

impl LocalEngine {
    /// The engine to load: `Auto` resolved from the build and the CPU.
    /// Asking for llama.cpp where it cannot run is an error.
    pub fn resolve(self) -> Result<Self> {
        let wanted = match self {
            Self::Auto => {
                return Ok(if llama_cpp_usable().is_ok() {
                    Self::LlamaCpp
                } else {
                    Self::Candle
                })
            }
            other => other,
        };
        if wanted == Self::LlamaCpp {
            llama_cpp_usable().map_err(|why| {
                Error::from(verity_core::ConfigError::Invalid {
                    key: "local.engine".into(),
                    message: format!("llama.cpp cannot run here: {why}"),
                })
            })?;
        }
        Ok(wanted)
    }

    /// `llama.cpp` or `candle`.
    pub fn name(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp",
            Self::Candle | Self::Auto => "candle",
        }
    }
}

/// Whether the llama.cpp engine can run in this build on this CPU, or why not.
pub(crate) fn llama_cpp_usable() -> std::result::Result<(), &'static str> {
    if !cfg!(feature = "llama-cpp") {
        return Err("this build has no llama.cpp (cargo feature `llama-cpp` of verity-llm)");
    }
    // The workspace builds ggml for x86-64-v3 (.cargo/config.toml): never call
    // it on a CPU without those instructions.
    #[cfg(target_arch = "x86_64")]
    {
        if !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c"))
        {
            return Err("the CPU lacks AVX2/FMA/F16C, which this llama.cpp build needs");
        }
    }
    Ok(())
}

impl std::str::FromStr for LocalEngine {
    type Err = String;

    /// `auto` (or empty), `candle`, `llama.cpp` (also `llama-cpp`, `llamacpp`).
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim() {
            "" | "auto" => Ok(Self::Auto),
            "candle" => Ok(Self::Candle),
            "llama.cpp" | "llama-cpp" | "llamacpp" => Ok(Self::LlamaCpp),
            other => Err(format!(
                "`{other}`: expected `candle`, `llama.cpp` or `auto`"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LocalEngine;

    #[test]
    fn engine_names_parse_and_unknown_ones_say_what_to_type() {
        assert_eq!("".parse(), Ok(LocalEngine::Auto));
        assert_eq!(" candle ".parse(), Ok(LocalEngine::Candle));
        for s in ["llama.cpp", "llama-cpp", "llamacpp"] {
            assert_eq!(s.parse(), Ok(LocalEngine::LlamaCpp));
        }
        let e = "gpu".parse::<LocalEngine>().unwrap_err();
        assert!(e.contains("`candle`, `llama.cpp` or `auto`"), "{e}");
    }

    #[test]
    fn auto_resolves_to_an_engine_that_runs() {
        let e = LocalEngine::Auto.resolve().unwrap();
        assert_ne!(e, LocalEngine::Auto);
        assert_eq!(
            e == LocalEngine::LlamaCpp,
            super::llama_cpp_usable().is_ok()
        );
    }
}
