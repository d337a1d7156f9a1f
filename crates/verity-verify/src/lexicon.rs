//! French → English glossary for the local judge: claims are often written in
//! French about English sources (seed 002's own example). A French word is
//! read as the English words it usually translates to, so that coverage,
//! relevance and slot comparison work across the two languages; words the
//! glossary lacks still match their English cognates (accents folded,
//! shared stem), which covers most technical vocabulary.
//!
//! Keys are folded (lower case, accents removed) French stems; a word matches
//! the longest key it starts with, when at most four letters follow (the
//! inflection: `augmente`, `augmenté`, `augmentation`).

/// Lower-case words that mark a text as French (no English word is spelled so).
const FRENCH_MARKERS: &[&str] = &[
    "le", "la", "les", "des", "du", "une", "est", "sont", "dans", "pour", "avec", "selon", "qui",
    "que", "aux", "au", "ont", "été", "cette", "ces", "sur", "pas", "de", "à", "en", "sera",
    "seront", "était", "leur", "leurs", "il", "elle", "ils", "elles", "mais", "où", "doit", "peut",
    "très", "plus", "avoir", "être", "nous", "vous", "ce", "se",
];

/// Whether `text` reads as French: two or more French function words
/// (written in lower case) or elisions (`l'IA`, `d'eau`, `qu'il`), or one
/// and an accented letter. English possessives (`Titan's`) are not elisions.
pub fn is_french(text: &str) -> bool {
    const ELIDED: &[&str] = &[
        "l", "d", "qu", "n", "s", "j", "c", "m", "t", "L", "D", "Qu", "N", "S", "J", "C",
    ];
    let mut markers = 0usize;
    let mut start: Option<usize> = None;
    let bytes_end = text.len();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            runs.push((s, i));
        }
    }
    if let Some(s) = start {
        runs.push((s, bytes_end));
    }
    for (s, e) in runs {
        let word = &text[s..e];
        let mut after = text[e..].chars();
        let elision = matches!(after.next(), Some('\'' | '’'))
            && after.next().is_some_and(char::is_alphabetic)
            && ELIDED.contains(&word);
        if elision || FRENCH_MARKERS.contains(&word) {
            markers += 1;
        }
    }
    let accents = text.chars().any(|c| "éèêàùçôîœ".contains(c));
    markers >= 2 || (markers >= 1 && accents)
}

/// `s` in lower case with French accents and ligatures folded.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        match c {
            'à' | 'â' | 'ä' | 'á' => out.push('a'),
            'é' | 'è' | 'ê' | 'ë' => out.push('e'),
            'î' | 'ï' | 'í' => out.push('i'),
            'ô' | 'ö' | 'ó' => out.push('o'),
            'ù' | 'û' | 'ü' | 'ú' => out.push('u'),
            'ç' => out.push('c'),
            'ÿ' => out.push('y'),
            'œ' => out.push_str("oe"),
            'æ' => out.push_str("ae"),
            c => out.push(c),
        }
    }
    out
}

/// Folded French stem → English words.
const GLOSSARY: &[(&str, &[&str])] = &[
    ("abonne", &["subscriber"]),
    ("accord", &["agreement", "deal"]),
    ("accusation", &["charge", "accusation", "count"]),
    ("accus", &["accused", "charge"]),
    ("achat", &["purchase", "buy"]),
    ("achet", &["buy", "bought", "purchase"]),
    ("acteur", &["actor"]),
    ("actuel", &["current"]),
    ("adopt", &["adopt"]),
    ("adulte", &["adult"]),
    ("affaire", &["case", "business"]),
    ("age", &["age", "old"]),
    ("agence", &["agency"]),
    ("aide", &["help", "aid"]),
    ("aliment", &["food"]),
    ("allemand", &["german"]),
    ("allemagne", &["germany"]),
    ("americain", &["american"]),
    ("ami", &["friend"]),
    ("analyse", &["analysis"]),
    ("anglais", &["english", "british"]),
    ("animal", &["animal"]),
    ("animaux", &["animal"]),
    ("annee", &["year"]),
    ("annonc", &["announce"]),
    ("ans", &["year", "old"]),
    ("an", &["year"]),
    ("appareil", &["device"]),
    ("appel", &["call"]),
    ("arret", &["arrest", "stop"]),
    ("argent", &["money"]),
    ("arme", &["weapon", "firearm", "gun"]),
    ("arrive", &["arrive", "reach"]),
    ("atteindr", &["reach"]),
    ("atteint", &["reach"]),
    ("atterrisseur", &["lander"]),
    ("augment", &["increase", "rise", "rose", "grow", "raise"]),
    ("australien", &["australian"]),
    ("autorite", &["authority"]),
    ("avion", &["plane", "aircraft", "jet"]),
    ("avocat", &["attorney", "lawyer"]),
    ("baiss", &["fall", "fell", "decline", "drop", "decrease"]),
    ("banque", &["bank"]),
    ("batiment", &["building"]),
    ("besoin", &["need"]),
    ("blesse", &["injure", "wound"]),
    ("bourse", &["stock", "market"]),
    ("britannique", &["british", "briton"]),
    ("but", &["goal"]),
    ("cas", &["case"]),
    ("cause", &["cause"]),
    ("centaine", &["hundred"]),
    ("chaleur", &["heat"]),
    ("changement", &["change"]),
    ("chang", &["change"]),
    ("charge", &["charge", "count"]),
    ("chef", &["head", "chief", "leader"]),
    ("chefs", &["chief", "head", "charge"]),
    ("chercheur", &["researcher", "scientist"]),
    ("chiffre", &["figure", "number"]),
    ("chinois", &["chinese"]),
    ("choisi", &["choose", "chose", "select", "pick"]),
    ("chute", &["fall", "drop"]),
    ("ciel", &["sky"]),
    ("commande", &["order"]),
    ("command", &["order"]),
    ("comprim", &["pill"]),
    ("condamn", &["sentence", "convict"]),
    ("condamnation", &["sentencing", "sentence", "conviction"]),
    ("confirm", &["confirm"]),
    ("conseil", &["council", "board"]),
    ("contre", &["against"]),
    ("coree", &["korea"]),
    ("cout", &["cost"]),
    ("coute", &["cost"]),
    ("croissance", &["growth"]),
    ("dechet", &["waste"]),
    ("decision", &["decision"]),
    ("decouv", &["discover", "find", "found"]),
    ("dela", &["beyond"]),
    ("demand", &["ask", "demand", "request"]),
    ("deces", &["death", "fatality"]),
    ("depense", &["spend", "spending"]),
    ("dernier", &["last", "latest"]),
    ("deuxieme", &["second"]),
    ("devs", &["developer", "dev"]),
    ("developpeur", &["developer"]),
    ("devant", &["ahead", "before", "front"]),
    ("devenir", &["become"]),
    ("deviendra", &["become"]),
    ("difficile", &["difficult", "hard"]),
    ("diminu", &["decrease", "decline", "reduce", "fall", "cut"]),
    ("dirigeant", &["leader", "executive"]),
    ("district", &["district"]),
    ("dix", &["ten"]),
    ("donnee", &["data"]),
    ("dollar", &["dollar"]),
    ("droit", &["right", "law"]),
    ("eau", &["water"]),
    ("echec", &["failure"]),
    ("ecole", &["school"]),
    ("economie", &["economy"]),
    ("efficace", &["effective", "efficient"]),
    ("eleve", &["high", "student"]),
    ("elu", &["elect"]),
    ("emploi", &["job", "employment"]),
    ("employe", &["employee", "worker", "staff"]),
    ("enfant", &["child", "children", "kid"]),
    ("engag", &["commit", "pledge"]),
    ("enquete", &["investigation", "inquiry", "probe", "survey"]),
    ("enseignant", &["teacher"]),
    ("entreprise", &["company", "firm", "business"]),
    ("environ", &["about", "around", "roughly"]),
    ("epidemie", &["outbreak", "epidemic"]),
    ("equipe", &["team"]),
    ("espace", &["space"]),
    ("espagne", &["spain"]),
    ("essai", &["trial", "test"]),
    ("etats-unis", &["us", "united", "states"]),
    ("etats", &["state"]),
    ("etude", &["study"]),
    ("europeen", &["european"]),
    ("evalu", &["estimate", "assess", "value"]),
    ("exig", &["demand", "require"]),
    ("expert", &["expert"]),
    ("face", &["face"]),
    ("faible", &["low", "weak"]),
    ("famille", &["family"]),
    ("femme", &["woman", "women", "wife"]),
    ("fermet", &["closure", "close"]),
    ("ferm", &["close", "shut"]),
    ("feuille", &["roadmap", "sheet"]),
    ("fevrier", &["february", "feb"]),
    ("fin", &["end"]),
    ("finition", &["finish"]),
    ("fois", &["times"]),
    ("fonction", &["function"]),
    ("fonds", &["fund"]),
    ("fort", &["strong"]),
    ("fourni", &["provide", "supply"]),
    ("francais", &["french"]),
    ("frontiere", &["border"]),
    ("gagn", &["win", "won", "gain", "earn"]),
    ("gouvern", &["government"]),
    ("grand", &["large", "big", "great", "major"]),
    ("grippe", &["flu", "influenza"]),
    ("groupe", &["group", "band"]),
    ("guerre", &["war"]),
    ("hausse", &["rise", "increase"]),
    ("heure", &["hour"]),
    ("hiberner", &["hibernate"]),
    ("ia", &["ai"]),
    ("hiver", &["winter"]),
    ("homme", &["man", "men"]),
    ("hopital", &["hospital"]),
    ("humain", &["human"]),
    ("industrie", &["industry"]),
    ("infect", &["infect"]),
    ("informat", &["computer", "computing"]),
    ("jeune", &["young", "youth"]),
    ("joue", &["play"]),
    ("jouai", &["play"]),
    ("jour", &["day"]),
    ("jusqu", &["up"]),
    ("juge", &["judge"]),
    ("lanc", &["launch"]),
    ("largeur", &["width", "wide"]),
    ("large", &["wide"]),
    ("legalis", &["legalize", "legalise", "legal"]),
    ("libere", &["release", "free"]),
    ("liber", &["release", "free"]),
    ("licenci", &["lay", "layoff", "cut", "fire"]),
    ("livre", &["book", "deliver"]),
    ("loi", &["law"]),
    ("lumiere", &["light"]),
    ("lune", &["moon", "lunar"]),
    ("lunaire", &["lunar", "moon"]),
    ("maison", &["house", "home"]),
    ("maladie", &["disease", "illness"]),
    ("mardi", &["tuesday"]),
    ("marche", &["market"]),
    ("masse", &["mass"]),
    ("medecin", &["doctor", "physician"]),
    ("meilleur", &["best", "better"]),
    ("mesur", &["measure"]),
    ("methamphetamine", &["methamphetamine", "meth"]),
    ("milliard", &["billion"]),
    ("millier", &["thousand"]),
    ("ministre", &["minister"]),
    ("ministere", &["ministry", "department"]),
    ("moins", &["less", "least"]),
    ("mois", &["month"]),
    ("mond", &["world", "global"]),
    ("mort", &["death", "dead", "die", "fatal"]),
    ("mortel", &["fatal", "deadly"]),
    ("moyen", &["average", "mean"]),
    ("musee", &["museum"]),
    ("natal", &["born", "birthplace"]),
    ("naissance", &["birth", "born"]),
    ("niveau", &["level"]),
    ("nombre", &["number"]),
    ("nouveau", &["new"]),
    ("nouvelle", &["new"]),
    ("novembre", &["november", "nov"]),
    ("obten", &["get", "obtain", "got"]),
    ("observ", &["observe", "observation"]),
    ("octobre", &["october", "oct"]),
    ("offre", &["offer"]),
    ("otage", &["hostage"]),
    ("ouvert", &["open"]),
    ("paie", &["pay"]),
    ("pay", &["pay"]),
    ("pays", &["country", "nation"]),
    ("peine", &["sentence", "penalty"]),
    ("personne", &["people", "person"]),
    ("perte", &["loss"]),
    ("petit", &["small", "little"]),
    ("peste", &["plague"]),
    ("planete", &["planet"]),
    ("plupart", &["most"]),
    ("plus", &["more", "most"]),
    ("police", &["police"]),
    ("population", &["population"]),
    ("porter", &["increase", "raise", "bring"]),
    ("pourcent", &["percent"]),
    ("premier", &["first"]),
    ("president", &["president"]),
    ("prevu", &["scheduled", "planned", "expected"]),
    ("prevoit", &["plan", "expect"]),
    ("prix", &["price", "cost", "list"]),
    ("probleme", &["problem", "issue"]),
    ("procureur", &["prosecutor"]),
    ("production", &["production", "output"]),
    ("produit", &["product"]),
    ("programme", &["program", "programme"]),
    ("projet", &["project", "plan"]),
    ("propos", &["offer", "propose"]),
    ("prison", &["prison", "jail"]),
    ("quelque", &["some", "about"]),
    ("rapid", &["quick", "fast", "prompt"]),
    ("rapport", &["report"]),
    ("recherch", &["research", "search"]),
    ("recreatif", &["recreational"]),
    ("reduir", &["reduce", "cut"]),
    ("reduit", &["reduce", "cut"]),
    ("reduction", &["reduction", "cut"]),
    ("rendement", &["efficiency", "yield"]),
    ("renflou", &["bail", "rescue", "lifeline"]),
    ("reserve", &["reserve"]),
    ("resultat", &["result"]),
    ("retour", &["return"]),
    ("risqu", &["face", "risk"]),
    ("rouvert", &["reopen", "reopened"]),
    ("salarie", &["employee", "worker"]),
    ("sante", &["health"]),
    ("selection", &["select", "selection"]),
    ("semaine", &["week"]),
    ("septembre", &["september", "sept", "sep"]),
    ("signal", &["signal"]),
    ("societe", &["company", "society"]),
    ("soleil", &["sun", "solar"]),
    ("solaire", &["solar"]),
    ("sommet", &["summit"]),
    ("suedois", &["swedish"]),
    ("suppr", &["cut", "eliminate", "remove"]),
    ("surface", &["surface"]),
    ("systeme", &["system"]),
    ("taux", &["rate"]),
    ("temperature", &["temperature"]),
    ("temps", &["time"]),
    ("terre", &["earth"]),
    ("tiers", &["third"]),
    ("total", &["total"]),
    ("traite", &["treat", "treatment"]),
    ("transform", &["turn", "transform", "convert"]),
    ("travail", &["work", "job"]),
    ("tresorerie", &["cash"]),
    ("trimestre", &["quarter"]),
    ("tue", &["kill"]),
    ("unis", &["united", "us"]),
    ("univers", &["universe"]),
    ("usage", &["use", "usage"]),
    ("utilis", &["use", "used"]),
    ("utilisateur", &["user"]),
    ("vaccin", &["vaccine", "vaccination"]),
    ("vaisseau", &["spacecraft", "ship"]),
    ("valeur", &["value"]),
    ("vapeur", &["vapor", "vapour"]),
    ("vendre", &["sell"]),
    ("vendu", &["sold", "sell"]),
    ("vente", &["sale"]),
    ("verser", &["pay", "inject", "commit"]),
    ("vie", &["life"]),
    ("ville", &["city", "town"]),
    ("virus", &["virus"]),
    ("vise", &["aim", "target"]),
    ("vitesse", &["speed"]),
    ("voiture", &["car", "vehicle"]),
    ("vol", &["flight", "theft"]),
];

/// The English words `word` (folded French) translates to, if the glossary
/// has it: keys of four letters or more match as stems (at most four more
/// letters), shorter ones only as whole words.
pub fn english(word: &str) -> &'static [&'static str] {
    GLOSSARY
        .iter()
        .filter(|(k, _)| {
            if k.len() < 4 {
                word == *k
            } else {
                word.starts_with(k) && word.len() - k.len() <= 4
            }
        })
        .max_by_key(|(k, _)| k.len())
        .map_or(&[], |(_, v)| v)
}

/// The text to search a source with for `claim`: the claim itself, and for
/// a French claim its words' English translations after it (sources are
/// mostly English; a French query alone finds nothing in them).
pub fn retrieval_text(claim: &str) -> std::borrow::Cow<'_, str> {
    if !is_french(claim) {
        return std::borrow::Cow::Borrowed(claim);
    }
    let mut out = claim.to_string();
    for w in claim
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        for e in english(&fold(w)) {
            out.push(' ');
            out.push_str(e);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_french_and_translates_stems() {
        assert!(is_french("85% des entreprises utilisent l'IA"));
        assert!(is_french("La peste peut être mortelle"));
        assert!(!is_french("85% of companies use AI"));
        assert!(!is_french("Le Monde reported it"));
        assert!(!is_french(
            "Titan's diameter is the Solar System's second, it's said"
        ));
        assert!(is_french(
            "La mission Dragonfly doit atteindre Titan en 2034."
        ));
        assert!(is_french(
            "Patrick Carlineo, 55 ans, risque jusqu'à 10 ans de prison."
        ));
        assert!(!is_french("The UN said it would not act, de facto."));
        assert_eq!(fold("Élèvent à Ganymède"), "elevent a ganymede");
        assert_eq!(english("entreprises"), &["company", "firm", "business"]);
        assert_eq!(english(&fold("augmenté")), english("augmente"));
        assert!(
            english("anti").is_empty(),
            "short keys match whole words only"
        );
        assert_eq!(english("ans"), &["year", "old"]);
    }
}
