//! URL patterns of `web_fetch` rules (`web_fetch(https://docs.rs/*)`), and the `*` wildcard that
//! `exec` command patterns share.
//!
//! A pattern names an optional scheme, a host, an optional port and an optional path:
//! `https://docs.rs/*`, `docs.rs`, `*.python.org/3/*`, `http://127.0.0.1:8080/api/*`, and Claude
//! Code's `domain:docs.rs`. It is compared with the URL as the `url` crate parses it (scheme and
//! host lower-cased, default port dropped, path percent-encoded), never with the text the model
//! wrote, so `https://docs.rs@evil.example/` has the host `evil.example` and `HTTPS://DOCS.RS/`
//! matches `https://docs.rs/*`. The parts are matched one by one: a `*` in the host stays
//! within the host and a `*` in the path matches any run of characters (slashes and the query
//! included). A missing scheme means `http` or `https`; a missing port the scheme's default; a
//! missing path every path; a path ending in `/*` also matches the bare directory.

use reqwest::Url;

/// What a URL's port must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Port {
    /// The scheme's default (no port in the URL).
    Default,
    /// `:*` or Claude's `domain:` form: any port.
    Any,
    /// `:8080`.
    Exact(u16),
}

/// A parsed URL pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPattern {
    /// `http`, `https`; `None` for either.
    scheme: Option<String>,
    /// Lower-cased, possibly with `*`; IPv6 literals keep their brackets.
    host: String,
    port: Port,
    /// Path and query with `*`; `None` for every path.
    path: Option<String>,
}

impl UrlPattern {
    /// Parse `raw`; the error completes "the allow rule `…` …".
    pub fn new(raw: &str) -> Result<UrlPattern, &'static str> {
        let raw = raw.trim();
        if let Some(host) = raw.strip_prefix("domain:") {
            return Ok(UrlPattern {
                scheme: None,
                host: host_pattern(host.trim())?,
                port: Port::Any,
                path: None,
            });
        }
        let (scheme, rest) = match raw.split_once("://") {
            Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
                "*" => (None, rest),
                scheme @ ("http" | "https") => (Some(scheme.to_owned()), rest),
                _ => return Err("has a URL pattern whose scheme is not http, https or *"),
            },
            None => (None, raw),
        };
        let (authority, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], Some(&rest[slash..])),
            None => (rest, None),
        };
        if authority.contains('@') {
            return Err("has a URL pattern with user information; name the host alone");
        }
        let (host, port) = split_port(authority)?;
        Ok(UrlPattern {
            scheme,
            host: host_pattern(host)?,
            port,
            path: path.map(normalize_path),
        })
    }

    /// Whether `url` (http or https) matches.
    pub fn matches(&self, url: &Url) -> bool {
        let scheme_matches = match &self.scheme {
            Some(scheme) => url.scheme() == scheme,
            None => matches!(url.scheme(), "http" | "https"),
        };
        let Some(host) = url.host_str() else {
            return false;
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let port_matches = match self.port {
            Port::Default => url.port().is_none(),
            Port::Any => true,
            Port::Exact(port) => url.port_or_known_default() == Some(port),
        };
        let path_matches = self.path.as_deref().is_none_or(|pattern| {
            let mut target = url.path().to_owned();
            if let Some(query) = url.query() {
                target.push('?');
                target.push_str(query);
            }
            wildcard_match(pattern, &target)
                || pattern
                    .strip_suffix("/*")
                    .is_some_and(|directory| directory == target)
        });
        scheme_matches && port_matches && path_matches && wildcard_match(&self.host, &host)
    }

    /// Claude Code's `domain:HOST` rule for this pattern: exact when the pattern restricts no
    /// more than the host (`None` otherwise), or, with `broaden`, the host's rule in any case
    /// (for a deny rule, where refusing more is the safe direction).
    pub fn claude_rule(&self, broaden: bool) -> Option<String> {
        let host_only = matches!(self.port, Port::Default | Port::Any)
            && self.path.as_deref().is_none_or(|path| path == "/*");
        (host_only || broaden).then(|| format!("domain:{}", self.host))
    }
}

/// `host[:port]`, IPv6 literals in brackets.
fn split_port(authority: &str) -> Result<(&str, Port), &'static str> {
    let port_start = if authority.starts_with('[') {
        authority.find(']').map(|end| end + 1)
    } else {
        authority.rfind(':')
    };
    let Some(colon) = port_start.filter(|index| authority[*index..].starts_with(':')) else {
        return Ok((authority, Port::Default));
    };
    let port = match &authority[colon + 1..] {
        "*" => Port::Any,
        digits => Port::Exact(
            digits
                .parse()
                .map_err(|_| "has a URL pattern whose port is not a number or *")?,
        ),
    };
    Ok((&authority[..colon], port))
}

/// The host as the `url` crate would write it (lower case, punycode), when it has no `*`.
fn host_pattern(host: &str) -> Result<String, &'static str> {
    let host = host.trim_end_matches('.');
    if host.is_empty() {
        return Err("has a URL pattern without a host");
    }
    if host.contains('*') {
        return Ok(host.to_ascii_lowercase());
    }
    Url::parse(&format!("http://{host}/"))
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .ok_or("has a URL pattern whose host is not a valid host name or address")
}

/// The path as the `url` crate would write it (dot segments applied, spaces percent-encoded),
/// `*` kept.
fn normalize_path(path: &str) -> String {
    match Url::parse(&format!("http://pattern.invalid{path}")) {
        Ok(url) => {
            let mut normalized = url.path().to_owned();
            if let Some(query) = url.query() {
                normalized.push('?');
                normalized.push_str(query);
            }
            normalized
        }
        Err(_) => path.to_owned(),
    }
}

/// `*` matches any run of characters; everything else is literal.
pub(super) fn wildcard_match(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    // Placing each middle piece as early as possible leaves the most room for the rest.
    for piece in middle {
        match rest.find(piece) {
            Some(index) => rest = &rest[index + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, url: &str) -> bool {
        UrlPattern::new(pattern)
            .unwrap()
            .matches(&Url::parse(url).unwrap())
    }

    #[test]
    fn a_site_pattern_matches_its_pages_and_nothing_that_only_looks_like_it() {
        let cases = [
            (
                "https://docs.rs/*",
                "https://docs.rs/serde/latest/serde/",
                true,
            ),
            ("https://docs.rs/*", "https://docs.rs", true),
            ("https://docs.rs/*", "https://docs.rs/search?q=serde", true),
            ("https://docs.rs/*", "HTTPS://DOCS.RS/Serde", true),
            ("https://docs.rs/*", "http://docs.rs/serde", false),
            ("https://docs.rs/*", "https://docs.rs:8443/serde", false),
            ("https://docs.rs/*", "https://docs.rs.evil.example/", false),
            ("https://docs.rs/*", "https://docs.rs@evil.example/", false),
            (
                "https://docs.rs/*",
                "https://evil.example/https://docs.rs/",
                false,
            ),
            (
                "https://docs.rs/*",
                "https://evil.example/?u=https://docs.rs/",
                false,
            ),
            ("docs.rs", "http://docs.rs/anything/at/all", true),
            ("docs.rs", "https://sub.docs.rs/", false),
            ("*.python.org", "https://docs.python.org/3/", true),
            ("*.python.org", "https://python.org/", false),
            ("*.python.org", "https://evil.example/.python.org/", false),
            ("https://docs.rs/serde/*", "https://docs.rs/serde", true),
            (
                "https://docs.rs/serde/*",
                "https://docs.rs/serde/1.0/",
                true,
            ),
            ("https://docs.rs/serde/*", "https://docs.rs/tokio/", false),
            (
                "https://docs.rs/serde/*",
                "https://docs.rs/serde/../tokio/",
                false,
            ),
            ("https://docs.rs/serde", "https://docs.rs/serde", true),
            (
                "https://docs.rs/serde",
                "https://docs.rs/serde/extra",
                false,
            ),
            ("https://docs.rs/a b/*", "https://docs.rs/a%20b/c", true),
            ("http://127.0.0.1:8080/*", "http://127.0.0.1:8080/x", true),
            ("http://127.0.0.1:8080/*", "http://127.0.0.1:9090/x", false),
            ("http://127.0.0.1:*/*", "http://127.0.0.1:9090/x", true),
            ("http://[::1]:8080/*", "http://[::1]:8080/x", true),
            ("domain:docs.rs", "https://docs.rs:8443/x", true),
            ("*://docs.rs", "http://docs.rs/", true),
            ("DOCS.RS", "https://docs.rs/", true),
        ];
        for (pattern, url, expected) in cases {
            assert_eq!(matches(pattern, url), expected, "{pattern} against {url}");
        }
    }

    #[test]
    fn malformed_patterns_are_refused_with_a_reason() {
        for (pattern, problem) in [
            ("ftp://docs.rs/*", "scheme is not http, https or *"),
            ("https://user@docs.rs/*", "user information"),
            ("https://docs.rs:port/*", "port is not a number"),
            ("https:///x", "without a host"),
            ("https://exa mple.com/", "not a valid host"),
        ] {
            let error = UrlPattern::new(pattern).unwrap_err();
            assert!(error.contains(problem), "{pattern}: {error}");
        }
    }

    #[test]
    fn claude_gets_a_domain_rule_when_the_pattern_is_about_a_host_only() {
        let rule =
            |pattern: &str, broaden: bool| UrlPattern::new(pattern).unwrap().claude_rule(broaden);
        assert_eq!(
            rule("https://docs.rs/*", false).as_deref(),
            Some("domain:docs.rs")
        );
        assert_eq!(
            rule("*.python.org", false).as_deref(),
            Some("domain:*.python.org")
        );
        assert_eq!(
            rule("domain:docs.rs", false).as_deref(),
            Some("domain:docs.rs")
        );
        assert_eq!(rule("https://docs.rs/serde/*", false), None);
        assert_eq!(rule("https://docs.rs:8443/*", false), None);
        assert_eq!(
            rule("https://docs.rs/private/*", true).as_deref(),
            Some("domain:docs.rs")
        );
    }

    #[test]
    fn the_wildcard_matches_any_run_and_everything_else_literally() {
        assert!(wildcard_match("git *", "git log --oneline"));
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("a*b*c", "abbbc"));
        assert!(!wildcard_match("a*b*c", "acb"));
        assert!(!wildcard_match("git", "git log"));
    }
}
