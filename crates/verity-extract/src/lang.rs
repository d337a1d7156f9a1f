//! Language detection (whatlang), reported as ISO 639-1 codes.

/// Characters looked at: detection is stable well before that and stays cheap on long documents.
const SAMPLE_CHARS: usize = 2_000;
/// Below this many letters the guess is not trusted.
const MIN_LETTERS: usize = 12;
/// Confidence accepted when whatlang does not call the guess reliable.
const MIN_CONFIDENCE: f64 = 0.5;

/// Detect the language of `text` as an ISO 639-1 code (`en`, `fr`, `de`, `zh`, …).
///
/// Returns `None` when the text is too short, the detector is not confident,
/// or the language has no two-letter code.
pub fn detect_lang(text: &str) -> Option<String> {
    let end = text
        .char_indices()
        .nth(SAMPLE_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let sample = text.get(..end)?;
    if sample.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS {
        return None;
    }
    let info = whatlang::detect(sample)?;
    // `is_reliable` alone rejects most single sentences; a clear margin is enough.
    if !info.is_reliable() && info.confidence() < MIN_CONFIDENCE {
        return None;
    }
    iso639_1(info.lang().code()).map(str::to_string)
}

/// Map whatlang's ISO 639-3 code to ISO 639-1.
fn iso639_1(code3: &str) -> Option<&'static str> {
    Some(match code3 {
        "eng" => "en",
        "fra" => "fr",
        "deu" => "de",
        "spa" => "es",
        "por" => "pt",
        "ita" => "it",
        "rus" => "ru",
        "cmn" => "zh",
        "jpn" => "ja",
        "kor" => "ko",
        "ara" => "ar",
        "hin" => "hi",
        "nld" => "nl",
        "pol" => "pl",
        "tur" => "tr",
        "ukr" => "uk",
        "swe" => "sv",
        "dan" => "da",
        "nob" => "nb",
        "fin" => "fi",
        "ces" => "cs",
        "ell" => "el",
        "hun" => "hu",
        "ron" => "ro",
        "bul" => "bg",
        "bel" => "be",
        "heb" => "he",
        "yid" => "yi",
        "vie" => "vi",
        "tha" => "th",
        "ind" => "id",
        "epo" => "eo",
        "ben" => "bn",
        "kat" => "ka",
        "amh" => "am",
        "jav" => "jv",
        "mar" => "mr",
        "kan" => "kn",
        "slv" => "sl",
        "hrv" => "hr",
        "srp" => "sr",
        "mkd" => "mk",
        "lit" => "lt",
        "lav" => "lv",
        "est" => "et",
        "tam" => "ta",
        "urd" => "ur",
        "guj" => "gu",
        "uzb" => "uz",
        "pan" => "pa",
        "aze" => "az",
        "tel" => "te",
        "pes" => "fa",
        "mal" => "ml",
        "ori" => "or",
        "mya" => "my",
        "nep" => "ne",
        "sin" => "si",
        "khm" => "km",
        "tuk" => "tk",
        "aka" => "ak",
        "zul" => "zu",
        "sna" => "sn",
        "afr" => "af",
        "lat" => "la",
        "slk" => "sk",
        "cat" => "ca",
        "tgl" => "tl",
        "hye" => "hy",
        "cym" => "cy",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_common_languages() {
        assert_eq!(
            detect_lang("The quick brown fox jumps over the lazy dog while the farmer watches from the porch.").as_deref(),
            Some("en")
        );
        assert_eq!(
            detect_lang("Les frais de routage du réseau Lightning ont fortement augmenté depuis le début de l'année dernière.")
                .as_deref(),
            Some("fr")
        );
        assert_eq!(
            detect_lang("Die Gebühren im Lightning-Netzwerk sind seit Anfang des letzten Jahres deutlich gestiegen, sagt er.")
                .as_deref(),
            Some("de")
        );
    }

    #[test]
    fn short_or_empty_text_is_unknown() {
        assert_eq!(detect_lang(""), None);
        assert_eq!(detect_lang("ok"), None);
        assert_eq!(detect_lang("1234 5678 !!!"), None);
    }
}
