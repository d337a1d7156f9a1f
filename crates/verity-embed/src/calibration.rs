//! The text [`Precision::Int8`](crate::Precision) measures input ranges on
//! when a model loads (the smoothing of [`crate::int8mm`]).
//!
//! Ten short paragraphs of general text (news, science, medicine, code,
//! sport, weather, fiction, finance): no evaluation data, so no benchmark is
//! fitted on. Fixed text gives fixed scales, so the same model gives the
//! same vectors on every load and every machine. Calibrating on 16 SciFact
//! abstracts instead gave the same cosine to f32 (0.99947 vs 0.99947 mean,
//! simulated); one f32 pass over these ~330 word pieces costs ~0.1 s at load.

use tokenizers::Tokenizer;

use crate::bert::Bert;

/// The calibration paragraphs.
pub(crate) const TEXTS: [&str; 10] = [
    "The committee approved the new budget on Tuesday after a long debate about school funding, road repairs and the cost of public transport in the northern districts.",
    "Photosynthesis converts light energy into chemical energy: chlorophyll absorbs red and blue light, and the plant stores the energy as glucose while releasing oxygen.",
    "In patients with type 2 diabetes, metformin reduced fasting glucose by 1.2 mmol/L (95% CI 0.8–1.6) compared with placebo over 24 weeks.",
    "To install the package, run `pip install verity`, then call verity.open() with the path of a folder; the index is created on first use.",
    "The striker scored twice in the second half, and the home team won 3–1 despite playing the last twenty minutes with ten men.",
    "Mutations in the BRCA1 gene increase the lifetime risk of breast and ovarian cancer; carriers are offered screening from the age of 30.",
    "Rust's ownership rules guarantee memory safety without a garbage collector: each value has one owner, and references are checked at compile time.",
    "Heavy rain is expected across the coast tonight, with winds of up to 90 km/h and a risk of flooding in low-lying areas.",
    "The novel follows a young woman who leaves her village for the city, where she works in a factory and slowly discovers a talent for painting.",
    "Quarterly revenue rose 12% to $4.3 billion, driven by cloud services, while operating margins fell slightly because of higher energy costs.",
];

/// Quantise `bert`'s dense layers, calibrated on [`TEXTS`] as `tokenizer`
/// encodes them.
pub(crate) fn quantize(bert: &mut Bert, tokenizer: &Tokenizer) -> candle_core::Result<()> {
    let encs = tokenizer
        .encode_batch(TEXTS.to_vec(), true)
        .map_err(|e| candle_core::Error::Msg(format!("calibration text: {e}")))?;
    let lens: Vec<usize> = encs.iter().map(|e| e.len()).collect();
    let ids: Vec<u32> = encs.iter().flat_map(|e| e.get_ids().to_vec()).collect();
    let types: Vec<u32> = encs
        .iter()
        .flat_map(|e| e.get_type_ids().to_vec())
        .collect();
    bert.quantize(&ids, &types, &lens)
}
