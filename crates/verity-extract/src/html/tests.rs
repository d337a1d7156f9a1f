use super::*;

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en-GB"><head>
<title>Big news | Example Times</title>
<meta property="og:title" content="Big news">
<meta name="author" content="Jane Roe">
<meta property="article:published_time" content="2024-05-06T07:08:09Z">
<link rel="canonical" href="/news/big">
<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2020-01-01","author":{"name":"LD Author"}}</script>
</head><body>
<header class="site-header"><nav><a href="/">Home</a> <a href="/world">World</a></nav></header>
<div id="cookie-banner">We use cookies. Accept all cookies?</div>
<main><article class="story">
<h1>Big news</h1>
<p>The first paragraph of the story explains, in some detail, what happened today and why it matters to readers.</p>
<p>A second paragraph adds context, quotes, and numbers, so that the article has enough text to be recognised.</p>
<h2>Details</h2>
<ul><li>First point</li><li>Second point with <a href="other.html">a link</a></li></ul>
<pre><code class="language-rust">fn main() {
    println!("hi");
}</code></pre>
<blockquote><p>Quoted words, spoken by someone important, are kept.</p></blockquote>
<table><tr><th>Year</th><th>Value</th></tr><tr><td>2023</td><td>1</td></tr><tr><td>2024</td><td>2</td></tr></table>
<div class="share-buttons"><a href="https://twitter.com/x">Tweet</a><a href="https://facebook.com/x">Share</a></div>
</article>
<section class="comments"><p>First comment: I disagree with everything, strongly, and at length here.</p></section>
<div class="related-articles"><ul><li><a href="/a">Another story</a></li><li><a href="/b">Yet another</a></li></ul></div>
</main>
<footer><p>Copyright Example Times, all rights reserved.</p></footer>
</body></html>"#;

#[test]
fn extracts_article_and_metadata() {
    let url = Url::parse("https://example.com/news/big?utm=1").unwrap();
    let p = parse_html(PAGE, Some(&url)).unwrap();
    let d = &p.document;
    let c = &d.content;
    assert!(c.contains("The first paragraph of the story"), "{c}");
    assert!(c.contains("## Details"), "{c}");
    // Link targets stay out of the text; they are kept in the metadata.
    assert!(c.contains("- Second point with a link"), "{c}");
    assert!(!c.contains("](") && !c.contains("https://"), "{c}");
    let links = d.metadata["links"].as_array().unwrap();
    assert!(links
        .iter()
        .any(|l| l["text"] == "a link" && l["url"] == "https://example.com/news/other.html"));
    assert!(
        c.contains("```rust\nfn main() {\n    println!(\"hi\");\n}\n```"),
        "{c}"
    );
    assert!(c.contains("> Quoted words"), "{c}");
    assert!(
        c.contains("| Year | Value |\n| --- | --- |\n| 2023 | 1 |"),
        "{c}"
    );
    for junk in [
        "Home",
        "cookies",
        "Tweet",
        "First comment",
        "Another story",
        "Copyright",
    ] {
        assert!(!c.contains(junk), "{junk} leaked into: {c}");
    }
    assert!(
        !c.contains("# Big news"),
        "title heading is metadata, not content: {c}"
    );
    assert_eq!(d.title.as_deref(), Some("Big news"));
    assert_eq!(
        d.metadata.get("author").and_then(|v| v.as_str()),
        Some("Jane Roe")
    );
    assert_eq!(
        d.ts.map(|t| t.to_rfc3339()),
        Some("2024-05-06T07:08:09+00:00".into())
    );
    assert_eq!(d.lang.as_deref(), Some("en"));
    assert_eq!(d.url.as_deref(), Some("https://example.com/news/big"));
    assert_eq!(p.format, SourceFormat::Html);
}

#[test]
fn json_ld_and_fallbacks() {
    let html = r#"<html><head><title>Only title</title>
<script type="application/ld+json">{"@graph":[{"@type":"BlogPosting","datePublished":"2021-02-03T04:05:06+01:00","author":[{"name":"A"},{"name":"B"}]}]}</script></head>
<body><div><p>Ceci est un texte en français, assez long pour que la détection de la langue fonctionne correctement sans aucun doute.</p></div></body></html>"#;
    let p = parse_html(html, None).unwrap();
    assert_eq!(p.document.title.as_deref(), Some("Only title"));
    assert_eq!(
        p.document.metadata.get("author").and_then(|v| v.as_str()),
        Some("A, B")
    );
    assert_eq!(
        p.document.ts.map(|t| t.to_rfc3339()),
        Some("2021-02-03T03:05:06+00:00".into())
    );
    assert_eq!(p.document.lang.as_deref(), Some("fr"));
    assert_eq!(p.document.url, None);
}

#[test]
fn plain_text_of_markdown() {
    let md = "# Title\n\nSee [the docs](https://x.y/z) and ![an image](https://i/p.png) **bold** `code`.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```rust\nlet x = 1;\n```";
    let t = markdown_to_plain(md);
    assert!(t.contains("See the docs and  bold code."), "{t}");
    assert!(!t.contains("https"), "{t}");
    assert!(!t.contains("rust"), "{t}");
    assert!(t.contains("let x = 1;"));
}

#[test]
fn empty_and_garbage() {
    for input in [
        "",
        "<",
        "<<<>>>",
        "</p></div>",
        "<p",
        "<!--",
        "<a href='",
        "\u{0}\u{1}<b>x",
        "<table><td>x",
    ] {
        let p = parse_html(input, None).unwrap();
        assert!(p.document.content.len() <= input.len() + 16);
    }
}

/// Article paragraphs long enough to be selected, around `extra`.
fn article(extra: &str) -> String {
    let para = "<p>The council voted on Tuesday, after a long debate, to expand the bus network, \
                    adding routes, shelters, and later evening service for riders.</p>";
    let page = format!(
            "<html><body><div id=\"primary\"><article><h1>Bus plan</h1>{para}{para}{extra}</article></div></body></html>"
        );
    parse_html(&page, None).unwrap().document.content
}

#[test]
fn related_heading_by_class_drops_following_teasers() {
    // Teasers outweigh the article: a class-marked heading still removes them.
    let teaser = "<article><p>Another story about something else entirely, with commas, \
                      clauses, and enough words to score well as a paragraph …</p></article>";
    let c = article(&format!(
        "</article><article><h3 class=\"relatedpoststitle\">You may like</h3>{}",
        teaser.repeat(6)
    ));
    assert!(c.contains("The council voted"), "{c}");
    assert!(!c.contains("Another story"), "{c}");
    assert!(!c.contains("You may like"), "{c}");
}

#[test]
fn related_heading_by_text_drops_following_list() {
    let c = article(
        "<h2>Related posts</h2><ul><li>Road works on Main Street</li><li>New trams</li></ul>",
    );
    assert!(c.contains("The council voted"), "{c}");
    assert!(
        !c.contains("Related posts") && !c.contains("New trams"),
        "{c}"
    );
    let c = article(r#"<div class="heading-h3">More stories</div><ul><li>Trams</li></ul>"#);
    assert!(!c.contains("More stories") && !c.contains("Trams"), "{c}");
    // An ordinary sub-heading and its section stay.
    let c = article("<h2>Routes</h2><p>Route 7 runs to the airport every ten minutes.</p>");
    assert!(c.contains("## Routes\n\nRoute 7 runs"), "{c}");
}

#[test]
fn tag_lists_dates_and_labels_are_dropped() {
    let c = article(
        r#"<span itemprop="datePublished">Monday, 22 January 2018</span>
            <strong>Tags<br><a rel="tag" href="/t/bus">bus</a>, <a rel="tag" href="/t/city">city</a></strong>
            <div><span>Advertisement</span></div><span class="count">Image 1 of 5</span>"#,
    );
    assert!(c.contains("The council voted"), "{c}");
    for junk in ["Monday", "Tags", "city", "Advertisement", "Image 1"] {
        assert!(!c.contains(junk), "{junk} leaked: {c}");
    }
}

#[test]
fn images_and_repeated_links_go_to_metadata() {
    let html = r#"<html><body><article>
<p>The council approved the budget on Tuesday after a long debate about <a href="/roads">road repairs</a>, schools and the new library, which opens next spring.</p>
<img src="/img/council.jpg" alt="Council members voting on the budget">
<p>Critics said <a href="/roads">the road plan</a> was too modest, while supporters praised <a href="https://other.example/lib">the library</a> and its long opening hours.</p>
</article></body></html>"#;
    let url = Url::parse("https://news.example/budget").unwrap();
    let d = parse_html(html, Some(&url)).unwrap().document;
    assert!(!d.content.contains("http"), "{}", d.content);
    assert!(!d.content.contains("!["), "{}", d.content);
    assert!(d.content.contains("road repairs"));
    let links = d.metadata["links"].as_array().unwrap();
    assert_eq!(links.len(), 2, "one entry per target: {links:?}");
    assert_eq!(links[0]["url"], "https://news.example/roads");
    let images = d.metadata["images"].as_array().unwrap();
    assert_eq!(images[0]["alt"], "Council members voting on the budget");
    assert_eq!(images[0]["url"], "https://news.example/img/council.jpg");
}

#[test]
fn whitespace_inside_inline_elements_separates_words() {
    let html = "<html><body><article><p>Of course the <a href=\"/f\">Florida Man </a>will have to try harder, and<em> the </em>state<strong>   </strong>spent half a million dollars on the campaign.</p></article></body></html>";
    let p = parse_html(html, None).unwrap();
    let c = &p.document.content;
    assert!(c.contains("the Florida Man will have"), "{c}");
    assert!(c.contains("and *the* state spent"), "{c}");
}

#[test]
fn a_link_in_a_span_inside_a_sentence_stays_in_the_sentence() {
    let html = "<html><body><article><h1>Fight</h1>\
        <p>The brawl late in the game drew attention across the league and beyond it for days afterwards.</p>\
        <p>CBS Sports Insider Jason La Canfora has reported that <span class=\"link\">\
        <a href=\"https://example.org/fine\">the NFL will fine Rudolph</a></span> for his role in the fight.</p>\
        <p>The league is expected to announce its decision on the matter later this week, officials said.</p>\
        </article></body></html>";
    let d = parse_html(html, None).unwrap();
    assert!(
        d.document
            .content
            .contains("has reported that the NFL will fine Rudolph for his role"),
        "{}",
        d.document.content
    );
}
