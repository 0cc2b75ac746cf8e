//! Hosts as the policy compares them: a domain name in one canonical form, or an address.
//!
//! Rules and the hosts clients ask for go through the same [`DomainName::parse`], so the two
//! sides always meet in one spelling: lowercase ASCII, an internationalized label as its
//! punycode (`bücher.example` is `xn--bcher-kva.example`, UTS #46 mapping, so fullwidth dots and
//! capitals fold too), no trailing dot. What is not a plain name is refused rather than guessed
//! at: an empty label, a character outside letters, digits, `-` and `_`, and a name whose last
//! label is a number (`2130706433`, `0x7f.1`, `127.1`), which the C resolver would read as an
//! IPv4 address in a form no rule can name.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A host name in canonical form (see the module comment).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DomainName(String);

/// Why a host could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("the host is empty")]
    Empty,
    #[error("{0:?} is not a valid host name (IDNA: {1})")]
    Idna(String, String),
    #[error("{0:?} has an empty label")]
    EmptyLabel(String),
    #[error("{0:?} has a label longer than 63 characters")]
    LongLabel(String),
    #[error("{0:?} is longer than 253 characters")]
    LongName(String),
    #[error("{0:?} has a character that cannot be in a host name ({1:?})")]
    Character(String, char),
    #[error(
        "{0:?} ends in a number: write an IPv4 address as four decimal parts (a.b.c.d) or an \
         IPv6 address in brackets"
    )]
    Numeric(String),
    #[error("{0:?} is not a valid IPv6 address")]
    Ipv6(String),
}

impl DomainName {
    /// Read `text` as a host name (see the module comment for what is refused).
    pub fn parse(text: &str) -> Result<DomainName, HostError> {
        let trimmed = text.strip_suffix('.').unwrap_or(text);
        if trimmed.is_empty() {
            return Err(HostError::Empty);
        }
        let ascii = idna::domain_to_ascii(trimmed)
            .map_err(|error| HostError::Idna(text.to_owned(), error.to_string()))?;
        if ascii.len() > 253 {
            return Err(HostError::LongName(text.to_owned()));
        }
        for label in ascii.split('.') {
            if label.is_empty() {
                return Err(HostError::EmptyLabel(text.to_owned()));
            }
            if label.len() > 63 {
                return Err(HostError::LongLabel(text.to_owned()));
            }
            if let Some(bad) = label
                .chars()
                .find(|&c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            {
                return Err(HostError::Character(text.to_owned(), bad));
            }
        }
        let last = ascii.rsplit('.').next().unwrap_or_default();
        let numeric = last.bytes().all(|b| b.is_ascii_digit())
            || (last.starts_with("0x") && last[2..].bytes().all(|b| b.is_ascii_hexdigit()));
        if numeric {
            return Err(HostError::Numeric(text.to_owned()));
        }
        Ok(DomainName(ascii))
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this name lies strictly beneath `parent`, on a label boundary
    /// (`a.b.example.org` is beneath `example.org`; `evilexample.org` and `example.org` are not).
    pub fn is_beneath(&self, parent: &DomainName) -> bool {
        self.0.len() > parent.0.len()
            && self.0.ends_with(&parent.0)
            && self.0.as_bytes()[self.0.len() - parent.0.len() - 1] == b'.'
    }

    /// `localhost` or a name beneath it (RFC 6761: always this machine's loopback).
    pub fn is_localhost(&self) -> bool {
        self.0 == "localhost" || self.0.ends_with(".localhost")
    }
}

impl fmt::Display for DomainName {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl FromStr for DomainName {
    type Err = HostError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        DomainName::parse(text)
    }
}

/// What a client asked to reach: a name, or an address written out.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Host {
    Name(DomainName),
    Address(IpAddr),
}

impl Host {
    /// Read a host as a client writes it: a name, a dotted-quad IPv4 address, or an IPv6 address
    /// with or without brackets. A v4-mapped IPv6 address is its IPv4 address.
    pub fn parse(text: &str) -> Result<Host, HostError> {
        if let Some(inner) = text
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            return inner
                .parse::<std::net::Ipv6Addr>()
                .map(|address| Host::Address(IpAddr::V6(address).to_canonical()))
                .map_err(|_| HostError::Ipv6(text.to_owned()));
        }
        if let Ok(address) = text.parse::<IpAddr>() {
            return Ok(Host::Address(address.to_canonical()));
        }
        if text.contains(':') {
            return Err(HostError::Ipv6(text.to_owned()));
        }
        DomainName::parse(text).map(Host::Name)
    }

    /// `host:port` as a URL writes it (an IPv6 address in brackets).
    pub fn with_port(&self, port: u16) -> String {
        match self {
            Host::Address(IpAddr::V6(address)) => format!("[{address}]:{port}"),
            _ => format!("{self}:{port}"),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(name) => name.fmt(formatter),
            Host::Address(address) => address.fmt(formatter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> String {
        DomainName::parse(text).unwrap().0
    }

    #[test]
    fn names_fold_to_one_spelling() {
        let table = [
            ("Registry.NPMJS.org", "registry.npmjs.org"),
            ("registry.npmjs.org.", "registry.npmjs.org"),
            ("bücher.example", "xn--bcher-kva.example"),
            ("XN--BCHER-KVA.example", "xn--bcher-kva.example"),
            // Fullwidth full stops are dots (UTS #46).
            ("docs\u{ff0e}python\u{ff0e}org", "docs.python.org"),
            ("_dmarc.example.org", "_dmarc.example.org"),
            ("localhost", "localhost"),
        ];
        for (text, expected) in table {
            assert_eq!(name(text), expected, "{text}");
        }
    }

    #[test]
    fn what_is_not_a_plain_name_is_refused() {
        for text in [
            "",
            ".",
            "a..b",
            ".example.org",
            "example.org..",
            "exa mple.org",
            "example.org/path",
            "user@example.org",
            "2130706433",
            "127.1",
            "0x7f.1",
            "a.b.0x7f",
            "a.b.12",
            "xn--zz--.example",
            &format!("{}.org", "a".repeat(64)),
            &format!("{}org", "a.".repeat(130)),
        ] {
            assert!(DomainName::parse(text).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn beneath_means_on_a_label_boundary() {
        let parent = DomainName::parse("x.org").unwrap();
        assert!(DomainName::parse("a.x.org").unwrap().is_beneath(&parent));
        assert!(DomainName::parse("a.b.X.org.").unwrap().is_beneath(&parent));
        assert!(!DomainName::parse("evilx.org").unwrap().is_beneath(&parent));
        assert!(!DomainName::parse("x.org").unwrap().is_beneath(&parent));
        assert!(!DomainName::parse("x.org.evil").unwrap().is_beneath(&parent));
    }

    #[test]
    fn hosts_are_names_or_addresses_written_out() {
        assert_eq!(
            Host::parse("[::1]").unwrap(),
            Host::Address("::1".parse().unwrap())
        );
        assert_eq!(
            Host::parse("::ffff:10.0.0.1").unwrap(),
            Host::Address("10.0.0.1".parse().unwrap())
        );
        assert_eq!(
            Host::parse("127.0.0.1").unwrap(),
            Host::Address("127.0.0.1".parse().unwrap())
        );
        assert!(matches!(Host::parse("Example.org").unwrap(), Host::Name(_)));
        assert!(Host::parse("fe80::1%eth0").is_err());
        assert!(Host::parse("[example.org]").is_err());
        assert_eq!(
            Host::parse("::1").unwrap().with_port(443),
            "[::1]:443".to_owned()
        );
    }
}
