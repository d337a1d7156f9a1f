//! Explanations of verdicts, in the claim's language (English or French)
//! and in the claim's and the source's own words: "The source says 62%,
//! the claim says 80%." / "La source dit 62%, l'affirmation dit 80%."
//! Words are quoted as written, never as stems.

/// Explanations for a claim written in French (`true`) or English.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explain {
    /// French templates.
    pub french: bool,
}

impl Explain {
    /// Templates for `claim`'s language.
    pub fn for_claim(claim: &str) -> Self {
        Self {
            french: crate::lexicon::is_french(claim),
        }
    }

    fn pick(&self, en: String, fr: String) -> String {
        if self.french {
            fr
        } else {
            en
        }
    }

    /// A figure, date, name or quantity that differs.
    pub fn differs(&self, claim: &str, source: &str) -> String {
        self.pick(
            format!("The source says {source}, the claim says {claim}."),
            format!("La source dit {source}, l'affirmation dit {claim}."),
        )
    }

    /// A figure the claim overstates a little (exaggeration).
    pub fn overstates(&self, claim: &str, source: &str) -> String {
        self.pick(
            format!("The claim exaggerates: the source says {source}, the claim says {claim}."),
            format!("L'affirmation exagère : la source dit {source}, l'affirmation dit {claim}."),
        )
    }

    /// The source does not discuss the claim's subject.
    pub fn not_discussed(&self, names: &str) -> String {
        self.pick(
            format!("The source does not discuss {names}."),
            format!("La source ne parle pas de {names}."),
        )
    }

    /// No passage of the source is about the claim.
    pub fn no_passage(&self) -> String {
        self.pick(
            "No passage of the source speaks of this claim.".into(),
            "Aucun passage de la source ne parle de cette affirmation.".into(),
        )
    }

    /// The source does not cover the claim; `missing` in the claim's words.
    pub fn not_covered(&self, missing: &[&str]) -> String {
        let m = missing.join(", ");
        self.pick(
            format!("The source does not discuss this claim: it does not mention {m}."),
            format!("La source ne traite pas de cette affirmation : elle ne mentionne pas {m}."),
        )
    }

    /// The source supports part of the claim only.
    pub fn part_only(&self, missing: &[&str]) -> String {
        let m = missing.join(", ");
        self.pick(
            format!("The source supports part of the claim; it does not mention {m}."),
            format!("La source confirme une partie de l'affirmation ; elle ne mentionne pas {m}."),
        )
    }

    /// The source negates what the claim states, or the reverse.
    pub fn negates(&self, source_negates: bool, words: &str) -> String {
        match (source_negates, self.french) {
            (true, false) => format!("The source negates what the claim states: \"{words}\"."),
            (true, true) => format!("La source nie ce que l'affirmation avance : « {words} »."),
            (false, false) => format!("The claim negates what the source states: \"{words}\"."),
            (false, true) => format!("L'affirmation nie ce que la source avance : « {words} »."),
        }
    }

    /// Opposite directions.
    pub fn opposite(&self, claim: &str, source: &str) -> String {
        self.pick(
            format!("The source says \"{source}\", the claim says \"{claim}\"."),
            format!("La source dit « {source} », l'affirmation dit « {claim} »."),
        )
    }

    /// The source hedges where the claim affirms.
    pub fn hedged(&self, words: &str) -> String {
        self.pick(
            format!("The source is tentative (\"{words}\") where the claim is affirmative."),
            format!("La source est prudente (« {words} ») là où l'affirmation est catégorique."),
        )
    }

    /// A figure the source does not state.
    pub fn unstated(&self, figure: &str) -> String {
        self.pick(
            format!("The source speaks of this but does not state {figure}."),
            format!("La source en parle mais n'indique pas {figure}."),
        )
    }

    /// Supported, with the claim's figures.
    pub fn supported(&self, figures: &[&str]) -> String {
        match (figures.is_empty(), self.french) {
            (true, false) => "The source states the claim.".into(),
            (true, true) => "La source confirme l'affirmation.".into(),
            (false, false) => format!("The source states the claim, with {}.", figures.join(", ")),
            (false, true) => format!(
                "La source confirme l'affirmation, avec {}.",
                figures.join(", ")
            ),
        }
    }
}
