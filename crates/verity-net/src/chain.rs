//! One line out of an error and its sources.

/// The error and its sources joined with `": "`, each source shown once
/// (a source whose text the line already holds is skipped: reqwest and
/// hyper often repeat the inner error in the outer one's message).
///
/// ```
/// let io = std::io::Error::new(std::io::ErrorKind::Other, "connection refused");
/// assert_eq!(verity_net::error_chain(&io), "connection refused");
/// ```
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as _)
        }
    }

    #[test]
    fn sources_are_joined_once_each() {
        let e = Layer(
            "error sending request",
            Some(Box::new(Layer(
                "client error (Connect)",
                Some(Box::new(Layer("Connection refused (os error 111)", None))),
            ))),
        );
        assert_eq!(
            error_chain(&e),
            "error sending request: client error (Connect): Connection refused (os error 111)"
        );
        let repeated = Layer(
            "tcp connect error: Connection refused",
            Some(Box::new(Layer("Connection refused", None))),
        );
        assert_eq!(
            error_chain(&repeated),
            "tcp connect error: Connection refused",
            "a source already in the line is not repeated"
        );
        assert_eq!(error_chain(&Layer("alone", None)), "alone");
    }
}
