//! The tokenizer and the chat layout of a GGUF model, rebuilt from its
//! metadata (`tokenizer.ggml.*`, byte-level GPT-2 BPE;
//! `tokenizer.chat_template`: ChatML or Llama-3 headers).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use candle_core::quantized::gguf_file;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{AddedToken, Tokenizer};
use verity_core::Result;

use super::cfg_err;

/// How messages are laid out for the model.
#[derive(Debug, Clone)]
pub(super) enum ChatFormat {
    /// `<|im_start|>role\n…<|im_end|>\n`, then `<|im_start|>assistant\n`.
    ChatMl {
        im_start: u32,
        im_end: u32,
        default_system: Option<String>,
    },
    /// `<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>`.
    Llama3 {
        begin: Option<u32>,
        start_header: u32,
        end_header: u32,
        eot: u32,
    },
}

/// The byte-level tokenizer rebuilt from the GGUF metadata.
pub(super) struct GgufTokenizer {
    pub(super) tokenizer: Tokenizer,
    /// Raw bytes of each token (empty for control tokens).
    pub(super) bytes: Vec<Vec<u8>>,
    /// Ids that end generation (eos, end-of-turn and every control token).
    pub(super) stop_ids: HashSet<u32>,
}

/// GPT-2 `bytes_to_unicode`: the printable character standing for each byte.
fn byte_chars() -> HashMap<char, u8> {
    let mut map = HashMap::with_capacity(256);
    let mut n = 0u32;
    for b in 0u32..=255 {
        let printable =
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        let c = if printable {
            char::from_u32(b)
        } else {
            n += 1;
            char::from_u32(255 + n)
        };
        if let (Some(c), Ok(byte)) = (c, u8::try_from(b)) {
            map.insert(c, byte);
        }
    }
    map
}

/// Token types of the GGUF vocabulary (llama.cpp numbering).
const TOKEN_TYPE_CONTROL: i32 = 3;
const TOKEN_TYPE_USER_DEFINED: i32 = 4;

fn md<'a>(ct: &'a gguf_file::Content, key: &str, path: &Path) -> Result<&'a gguf_file::Value> {
    ct.metadata
        .get(key)
        .ok_or_else(|| cfg_err("missing GGUF metadata", path, key))
}

pub(super) fn md_u32(ct: &gguf_file::Content, key: &str) -> Option<u32> {
    let v = ct.metadata.get(key)?;
    v.to_u32()
        .ok()
        .or_else(|| v.to_i32().ok().and_then(|x| u32::try_from(x).ok()))
        .or_else(|| v.to_u64().ok().and_then(|x| u32::try_from(x).ok()))
}

pub(super) fn build_tokenizer(ct: &gguf_file::Content, path: &Path) -> Result<GgufTokenizer> {
    let model = md(ct, "tokenizer.ggml.model", path)?
        .to_string()
        .map_err(|e| cfg_err("tokenizer.ggml.model", path, e))?;
    if model != "gpt2" {
        return Err(cfg_err(
            "unsupported tokenizer",
            path,
            format!("`{model}` (only byte-level BPE `gpt2` tokenizers are supported)"),
        ));
    }
    let tokens: Vec<String> = md(ct, "tokenizer.ggml.tokens", path)?
        .to_vec()
        .map_err(|e| cfg_err("tokenizer.ggml.tokens", path, e))?
        .iter()
        .map(|v| {
            v.to_string()
                .cloned()
                .map_err(|e| cfg_err("tokenizer.ggml.tokens", path, e))
        })
        .collect::<Result<_>>()?;
    let merges: Vec<(String, String)> = md(ct, "tokenizer.ggml.merges", path)?
        .to_vec()
        .map_err(|e| cfg_err("tokenizer.ggml.merges", path, e))?
        .iter()
        .filter_map(|v| v.to_string().ok())
        .filter_map(|m| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        })
        .collect();
    let types: Vec<i32> = ct
        .metadata
        .get("tokenizer.ggml.token_type")
        .and_then(|v| v.to_vec().ok())
        .map(|v| v.iter().map(|t| t.to_i32().unwrap_or(1)).collect())
        .unwrap_or_default();
    let ttype = |id: usize| types.get(id).copied().unwrap_or(1);

    let vocab: tokenizers::models::bpe::Vocab = tokens
        .iter()
        .enumerate()
        .filter_map(|(i, t)| u32::try_from(i).ok().map(|i| (t.clone(), i)))
        .collect();
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| cfg_err("cannot build the BPE tokenizer", path, e))?;
    let mut tokenizer = Tokenizer::new(bpe);
    let pre = ct
        .metadata
        .get("tokenizer.ggml.pre")
        .and_then(|v| v.to_string().ok())
        .cloned()
        .unwrap_or_default();
    let byte_level = ByteLevel::new(false, true, true);
    // Pre-tokenizers that split digits one by one first (llama.cpp's STARCODER family, SmolLM).
    let pre_tok: PreTokenizerWrapper = if matches!(
        pre.as_str(),
        "smollm" | "starcoder" | "refact" | "codeshell"
    ) {
        Sequence::new(vec![Digits::new(true).into(), byte_level.into()]).into()
    } else {
        byte_level.into()
    };
    tokenizer.with_pre_tokenizer(Some(pre_tok));
    tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
    let specials: Vec<AddedToken> = tokens
        .iter()
        .enumerate()
        .filter(|(i, _)| matches!(ttype(*i), TOKEN_TYPE_CONTROL | TOKEN_TYPE_USER_DEFINED))
        .map(|(_, t)| AddedToken::from(t.clone(), true))
        .collect();
    tokenizer.add_special_tokens(&specials);
    // Text from users is never parsed for special tokens: `<|im_end|>` typed in a
    // message is encoded as plain characters (no prompt injection of turn markers).
    tokenizer.set_encode_special_tokens(true);

    let map = byte_chars();
    let bytes: Vec<Vec<u8>> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if ttype(i) == TOKEN_TYPE_CONTROL {
                return Vec::new();
            }
            let mut out = Vec::with_capacity(t.len());
            for c in t.chars() {
                match map.get(&c) {
                    Some(b) => out.push(*b),
                    None => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
            out
        })
        .collect();

    let mut stop_ids: HashSet<u32> = (0..tokens.len())
        .filter(|&i| ttype(i) == TOKEN_TYPE_CONTROL)
        .filter_map(|i| u32::try_from(i).ok())
        .collect();
    if let Some(eos) = md_u32(ct, "tokenizer.ggml.eos_token_id") {
        stop_ids.insert(eos);
    }
    // Never stop on the BOS token if it was listed as control but the model emits it mid-text:
    // generation of BOS is meaningless anyway, so it stays a stop token.
    Ok(GgufTokenizer {
        tokenizer,
        bytes,
        stop_ids,
    })
}

/// Recognise the chat template from the metadata.
pub(super) fn chat_format(
    ct: &gguf_file::Content,
    tok: &GgufTokenizer,
    path: &Path,
) -> Result<ChatFormat> {
    let template = ct
        .metadata
        .get("tokenizer.chat_template")
        .and_then(|v| v.to_string().ok())
        .cloned();
    let id = |s: &str| tok.tokenizer.token_to_id(s);
    let t = template.as_deref().unwrap_or("");
    if t.contains("<|start_header_id|>") {
        if let (Some(start_header), Some(end_header), Some(eot)) = (
            id("<|start_header_id|>"),
            id("<|end_header_id|>"),
            id("<|eot_id|>"),
        ) {
            return Ok(ChatFormat::Llama3 {
                begin: id("<|begin_of_text|>"),
                start_header,
                end_header,
                eot,
            });
        }
    }
    if let (Some(im_start), Some(im_end)) = (id("<|im_start|>"), id("<|im_end|>")) {
        // The default system prompt some templates insert when none is given.
        let default_system = t
            .find("<|im_start|>system\\n")
            .or_else(|| t.find("<|im_start|>system\n"))
            .and_then(|pos| {
                let rest = t.get(pos..)?;
                let body_start = rest
                    .find("system\\n")
                    .map(|p| p + "system\\n".len())
                    .or_else(|| rest.find("system\n").map(|p| p + "system\n".len()))?;
                let body = rest.get(body_start..)?;
                let end = body.find("<|im_end|>")?;
                let text = body.get(..end)?;
                // Only a literal default (a template expression would contain quotes or braces).
                if text.contains(['{', '}', '\'', '"']) {
                    None
                } else {
                    Some(text.replace("\\n", "\n"))
                }
            });
        return Ok(ChatFormat::ChatMl {
            im_start,
            im_end,
            default_system,
        });
    }
    Err(cfg_err(
        "unsupported chat template",
        path,
        "neither ChatML (<|im_start|>) nor Llama-3 header tokens are present in the vocabulary",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_map_is_a_bijection() {
        let m = byte_chars();
        assert_eq!(m.len(), 256);
        assert_eq!(m.get(&'Ġ'), Some(&b' '));
        assert_eq!(m.get(&'Ċ'), Some(&b'\n'));
        assert_eq!(m.get(&'a'), Some(&b'a'));
    }
}
