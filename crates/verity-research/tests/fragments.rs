//! No fragment in a note: a sentence that leans on the one before it
//! ("Because …", "But …", "It is for that reason …", "This radar …",
//! "They expect …") is in the note only right after the sentence it leans
//! on in its source. Checked on a page written for it (`europa.html`),
//! with the extractive writer and with an LLM writer that quotes a
//! connective-led sentence alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use verity_core::text::{leans_on_previous, sentence_spans};
use verity_research::check::FRAGMENT_NOTE;
use verity_research::{Progress, Syllabus};

use crate::common;

fn quiet(_: &Progress) {}

/// The paragraphs of `europa.html`, sentence by sentence, in page order.
const PAGE: &[&[&str]] = &[
    &[
        "Europa, an icy moon of Jupiter, hides a salty ocean beneath a crust of ice about twenty kilometres thick.",
        "Scientists think this ocean holds twice as much water as all of the oceans of Earth.",
        "Because the ocean touches a rocky floor, chemical reactions on that floor could feed simple life.",
        "But no probe has ever landed on the surface of the moon.",
    ],
    &[
        "NASA's Europa Clipper spacecraft will make 49 close flybys of the moon from 2030.",
        "It is for that reason that the spacecraft carries an ice-penetrating radar.",
        "This radar can sense pockets of water up to thirty kilometres below the surface.",
        "The spacecraft also carries a mass spectrometer that will sample the gases of the plumes.",
    ],
    &[
        "Radiation around Jupiter is intense enough to damage electronics within days.",
        "However, engineers shielded the computers of the spacecraft in a vault of titanium and aluminium.",
        "They expect the vault to keep the instruments of the Europa Clipper working for four years.",
    ],
];

fn syllabus(base: &str) -> String {
    format!(
        "# Icy worlds\n\n\
         ## Module 1: Europa's ocean\n\n\
         The salty ocean under the ice of Europa and whether it could feed life.\n\n\
         ## Module 2: Europa Clipper\n\n\
         The Clipper spacecraft: its flybys, its radar and its radiation vault.\n\n\
         ## References\n\n\
         - Europa missions — {base}/europa.html (keywords: Europa, ocean, Clipper, radar, radiation)\n"
    )
}

/// The sentence before `s` in its page paragraph (`None`: first, or not on the page).
fn page_predecessor(s: &str) -> Option<&'static str> {
    PAGE.iter().find_map(|p| {
        let i = p.iter().position(|x| *x == s)?;
        i.checked_sub(1).map(|j| p[j])
    })
}

/// Sentences of the note's module sections that lean on a sentence the
/// note does not give right before them.
fn fragments(markdown: &str) -> Vec<String> {
    let body = markdown.split("## What is missing").next().unwrap_or("");
    let body = body.split("## References").next().unwrap_or("");
    let mut found = Vec::new();
    for para in body.split("\n\n") {
        let para = para.trim();
        if para.starts_with('#') || para.starts_with('_') {
            continue;
        }
        // A bullet stands alone: each is its own paragraph.
        for block in para.lines().map(|l| l.trim_start_matches("- ")) {
            let mut previous: Option<String> = None;
            for r in sentence_spans(block) {
                let s = citations_removed(&block[r]);
                if leans_on_previous(&s)
                    && page_predecessor(&s).is_none_or(|p| previous.as_deref() != Some(p))
                {
                    found.push(s.clone());
                }
                previous = Some(s);
            }
        }
    }
    found
}

fn citations_removed(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j)
                if rest[i + 1..i + j]
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ',' || c == ' ') =>
            {
                rest = &rest[i + j + 1..];
            }
            _ => {
                out.push('[');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    // "… life [1]." and "… life. [1]" both read as "… life."
    let t = out.split_whitespace().collect::<Vec<_>>().join(" ");
    t.replace(" .", ".")
}

#[test]
fn the_fragment_check_catches_a_connective_led_sentence_quoted_alone() {
    let alone = "## Module 1\n\nBecause the ocean touches a rocky floor, chemical reactions on that floor could feed simple life. [1]\n";
    assert_eq!(
        fragments(alone),
        ["Because the ocean touches a rocky floor, chemical reactions on that floor could feed simple life."]
    );
    // After a sentence that is not the one it leans on: still a fragment.
    let wrong = "## Module 1\n\nEuropa, an icy moon of Jupiter, hides a salty ocean beneath a crust of ice about twenty kilometres thick. [1] But no probe has ever landed on the surface of the moon. [1]\n";
    assert_eq!(fragments(wrong).len(), 1, "{wrong}");
    // With the sentence it leans on right before it: not one.
    let attached = "## Module 1\n\nScientists think this ocean holds twice as much water as all of the oceans of Earth. [1] Because the ocean touches a rocky floor, chemical reactions on that floor could feed simple life. [1]\n";
    assert!(fragments(attached).is_empty(), "{:?}", fragments(attached));
    // A bullet is read alone.
    let bullet = "### Key figures\n\n- They expect the vault to keep the instruments of the Europa Clipper working for four years. [1]\n";
    assert_eq!(fragments(bullet).len(), 1);
}

#[tokio::test]
async fn the_offline_note_quotes_no_sentence_without_the_one_it_leans_on() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = dir.path().join("kb");
    let p = common::pipeline(common::store(), &kb_dir).build().unwrap();
    let syl = Syllabus::parse_markdown(&syllabus(&server.base)).unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    let md = &out.report.markdown;
    eprintln!("{md}");
    assert_eq!(out.report.coverage, 1.0, "{:?}", out.report.themes);
    assert!(fragments(md).is_empty(), "{:?}\n{md}", fragments(md));
    // Every sentence kept is a sentence of the page the judge supports.
    let kept: Vec<_> = out.report.sentences.iter().filter(|s| s.kept).collect();
    assert!(kept.len() >= 4, "{kept:?}");
    for s in kept {
        assert_eq!(s.verdict, Some(verity_core::Verdict::Supported), "{s:?}");
    }
}

#[tokio::test]
async fn a_writer_quoting_a_connective_led_sentence_alone_loses_it_in_the_check() {
    let server = common::serve().await;
    let dir = tempfile::tempdir().unwrap();
    let kb_dir = dir.path().join("kb");
    let g = common::Scripted::new(|_, prompt| {
        if prompt.contains("LeadResearcher") {
            return "no plan today".into();
        }
        if prompt.contains("summarise documents") {
            return "A page on missions to Europa.\nKeywords: europa, ocean".into();
        }
        let n = prompt
            .lines()
            .find_map(|l| {
                let (n, t) = l.strip_prefix('[')?.split_once("] ")?;
                (t.trim() == "Europa missions").then(|| n.parse::<usize>().ok())?
            })
            .unwrap_or(1);
        format!(
            "# Research note: Icy worlds\n\n\
             ## Module 1: Europa's ocean\n\n\
             Because the ocean touches a rocky floor, chemical reactions on that floor could feed simple life [{n}]. \
             Europa, an icy moon of Jupiter, hides a salty ocean beneath a crust of ice about twenty kilometres thick [{n}].\n\n\
             ## Module 2: Europa Clipper\n\n\
             NASA's Europa Clipper spacecraft will make 49 close flybys of the moon from 2030 [{n}]. \
             It is for that reason that the spacecraft carries an ice-penetrating radar [{n}].\n"
        )
    });
    let gen: Arc<dyn verity_core::Generator> = g.clone();
    let p = common::pipeline(common::store(), &kb_dir)
        .generator(Some(gen))
        .build()
        .unwrap();
    let syl = Syllabus::parse_markdown(&syllabus(&server.base)).unwrap();
    let out = p.run(syl, &dir.path().join("run"), &quiet).await.unwrap();
    let r = &out.report;
    eprintln!("{}\n{:?}", r.markdown, r.sentences);
    assert!(r.writer.starts_with("llm:"), "{}", r.writer);
    let because = r
        .sentences
        .iter()
        .find(|s| s.text.starts_with("Because the ocean"))
        .expect("the sentence is reported");
    assert!(!because.kept);
    assert_eq!(because.notes, [FRAGMENT_NOTE]);
    assert!(!r.markdown.contains("Because the ocean"), "{}", r.markdown);
    // The one after the sentence it leans on stays, and is supported.
    let reason = r
        .sentences
        .iter()
        .find(|s| s.text.starts_with("It is for that reason"))
        .expect("the sentence is reported");
    assert!(reason.kept, "{reason:?}");
    assert_eq!(reason.verdict, Some(verity_core::Verdict::Supported));
    assert!(fragments(&r.markdown).is_empty(), "{}", r.markdown);
}
