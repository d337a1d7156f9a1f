//! PDF text extraction with lopdf: per-page text through font encodings and ToUnicode CMaps.
