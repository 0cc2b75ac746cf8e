//! One allow or deny rule, as `--allow-host PATTERN` and `[sandbox.network] allow`/`deny`
//! write it.
//!
//! The forms (each with an optional `:PORT`, or `:*` for any port; without one, any port):
//! - `registry.npmjs.org`: that name only.
//! - `*.pythonhosted.org`: any name beneath it, on a label boundary, and not the name itself
//!   (`files.pythonhosted.org`, not `pythonhosted.org`, not `evilpythonhosted.org`). A `*` stands
//!   only as the whole first label, and never over a top-level domain alone (`*.org`).
//! - `localhost:5432`: the loopback port 5432 (`localhost` is always this machine's loopback).
//! - `203.0.113.7`, `[2001:db8::1]:443`, `10.0.0.0/8`, `fd00::/8`: an address or a network,
//!   for clients that connect to an address written out.
//! - `@npm`, `@pypi`, `@crates`, `@go`, `@debian`: the hosts of a package registry (see
//!   [`crate::presets`]).
//!
//! A lone `*` is refused: a rule for every host is `--allow-network`.

use std::fmt;
use std::net::IpAddr;

use crate::host::{DomainName, HostError};
use crate::presets;

/// What a rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Exactly this name.
    Name(DomainName),
    /// Any name strictly beneath this one (`*.NAME`).
    Beneath(DomainName),
    /// Exactly this address (v4-mapped IPv6 is stored as IPv4).
    Address(IpAddr),
    /// Any address in this network (the address has no bits past the prefix).
    Network { address: IpAddr, prefix: u8 },
}

/// Where a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Written by the user.
    Written,
    /// One of the hosts of a preset (its name, without the `@`).
    Preset(&'static str),
}

/// One rule (see the module comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub target: Target,
    /// `None`: any port.
    pub port: Option<u16>,
    pub source: Source,
}

/// A rule that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the network rule {rule:?} {problem}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// What is wrong with it, as "has no host".
    pub problem: String,
}

impl Rule {
    /// Read one rule; a preset gives one rule per host.
    pub fn parse(text: &str) -> Result<Vec<Rule>, RuleError> {
        let error = |problem: String| RuleError {
            rule: text.to_owned(),
            problem,
        };
        let trimmed = text.trim();
        if let Some(name) = trimmed.strip_prefix('@') {
            let preset = presets::preset(name).ok_or_else(|| {
                let known: Vec<String> = presets::PRESETS
                    .iter()
                    .map(|preset| format!("@{}", preset.name))
                    .collect();
                error(format!(
                    "names no preset; the presets are {}",
                    known.join(", ")
                ))
            })?;
            return preset
                .hosts
                .iter()
                .map(|host| {
                    Ok(Rule {
                        target: Target::Name(
                            DomainName::parse(host).map_err(|e| error(e.to_string()))?,
                        ),
                        port: None,
                        source: Source::Preset(preset.name),
                    })
                })
                .collect();
        }
        let (host, port) = split_port(trimmed).map_err(error)?;
        let target = parse_target(host).map_err(error)?;
        Ok(vec![Rule {
            target,
            port,
            source: Source::Written,
        }])
    }

    /// Whether the rule covers the name `name` on `port`.
    pub fn matches_name(&self, name: &DomainName, port: u16) -> bool {
        self.covers_port(port)
            && match &self.target {
                Target::Name(own) => own == name,
                Target::Beneath(parent) => name.is_beneath(parent),
                Target::Address(_) | Target::Network { .. } => false,
            }
    }

    /// Whether the rule covers the address `address` on `port`.
    pub fn matches_address(&self, address: IpAddr, port: u16) -> bool {
        let address = address.to_canonical();
        self.covers_port(port)
            && match self.target {
                Target::Address(own) => own == address,
                Target::Network {
                    address: network,
                    prefix,
                } => within(address, network, prefix),
                Target::Name(_) | Target::Beneath(_) => false,
            }
    }

    /// Whether the user spelled the host out in this rule: an exact name or an address or
    /// network they wrote (not a wildcard, not a preset). Such a rule may reach a private
    /// address.
    pub fn is_naming(&self) -> bool {
        self.source == Source::Written
            && matches!(
                self.target,
                Target::Name(_) | Target::Address(_) | Target::Network { .. }
            )
    }

    fn covers_port(&self, port: u16) -> bool {
        self.port.is_none_or(|own| own == port)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = match &self.target {
            Target::Name(name) => name.to_string(),
            Target::Beneath(name) => format!("*.{name}"),
            Target::Address(address) => address.to_string(),
            Target::Network { address, prefix } => format!("{address}/{prefix}"),
        };
        // An IPv6 address or network takes brackets before a port.
        if self.port.is_some() && host.contains(':') {
            write!(formatter, "[{host}]")?;
        } else {
            formatter.write_str(&host)?;
        }
        if let Some(port) = self.port {
            write!(formatter, ":{port}")?;
        }
        if let Source::Preset(preset) = self.source {
            write!(formatter, " (@{preset})")?;
        }
        Ok(())
    }
}

/// Split `host:port`, `[v6]:port`, a bare IPv6 address or network (no port) and a host alone.
pub(crate) fn split_port(text: &str) -> Result<(&str, Option<u16>), String> {
    if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest
            .split_once(']')
            .ok_or_else(|| "has a `[` without its `]`".to_owned())?;
        return match after {
            "" => Ok((inside, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((inside, parse_port(port)?)),
                None => Err(format!("has {after:?} after its `]`")),
            },
        };
    }
    if text.matches(':').count() > 1 {
        // A bare IPv6 address or network takes no port.
        return Ok((text, None));
    }
    match text.rsplit_once(':') {
        Some((host, port)) => Ok((host, parse_port(port)?)),
        None => Ok((text, None)),
    }
}

fn parse_port(text: &str) -> Result<Option<u16>, String> {
    if text == "*" {
        return Ok(None);
    }
    match text.parse::<u16>() {
        Ok(port) if port > 0 && text.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(port)),
        _ => Err(format!(
            "has the port {text:?}; a port is a number from 1 to 65535, or `*` for any"
        )),
    }
}

fn parse_target(host: &str) -> Result<Target, String> {
    let host_error = |error: HostError| error.to_string();
    if host.is_empty() {
        return Err("has no host".to_owned());
    }
    if host == "*" || host == "*." {
        return Err(
            "would allow every host; that is --allow-network (the network open, without rules)"
                .to_owned(),
        );
    }
    if let Some(parent) = host.strip_prefix("*.") {
        if parent.contains('*') {
            return Err("has a `*` past its first label".to_owned());
        }
        let parent = DomainName::parse(parent).map_err(host_error)?;
        if !parent.as_str().contains('.') {
            return Err(format!(
                "would allow the whole top-level domain {parent:?}; name a domain beneath it"
            ));
        }
        return Ok(Target::Beneath(parent));
    }
    if host.contains('*') {
        return Err(
            "has a `*` that is not its whole first label (write `*.example.org`)".to_owned(),
        );
    }
    if let Some((address, prefix)) = host.split_once('/') {
        let address: IpAddr = address
            .parse()
            .map_err(|_| format!("has {address:?} before its `/`, which is not an address"))?;
        let address = address.to_canonical();
        let bits = if address.is_ipv4() { 32 } else { 128 };
        let prefix: u8 = prefix
            .parse()
            .ok()
            .filter(|prefix| *prefix <= bits)
            .ok_or_else(|| format!("has the prefix length {prefix:?}; it is 0 to {bits}"))?;
        if prefix == 0 {
            return Err(
                "would allow every address; that is --allow-network (the network open, \
                 without rules)"
                    .to_owned(),
            );
        }
        return Ok(Target::Network {
            address: masked(address, prefix),
            prefix,
        });
    }
    if let Ok(address) = host.parse::<IpAddr>() {
        return Ok(Target::Address(address.to_canonical()));
    }
    DomainName::parse(host)
        .map(Target::Name)
        .map_err(host_error)
}

/// `address` with the bits past `prefix` cleared.
fn masked(address: IpAddr, prefix: u8) -> IpAddr {
    match address {
        IpAddr::V4(address) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4((u32::from(address) & mask).into())
        }
        IpAddr::V6(address) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6((u128::from(address) & mask).into())
        }
    }
}

fn within(address: IpAddr, network: IpAddr, prefix: u8) -> bool {
    address.is_ipv4() == network.is_ipv4() && masked(address, prefix) == network
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Rule {
        let mut rules = Rule::parse(text).unwrap();
        assert_eq!(rules.len(), 1, "{text}");
        rules.remove(0)
    }

    fn name(text: &str) -> DomainName {
        DomainName::parse(text).unwrap()
    }

    #[test]
    fn rules_read_their_host_and_port() {
        let table: [(&str, &str); 12] = [
            ("registry.npmjs.org", "registry.npmjs.org"),
            ("Registry.NPMJS.org.", "registry.npmjs.org"),
            ("registry.npmjs.org:443", "registry.npmjs.org:443"),
            ("registry.npmjs.org:*", "registry.npmjs.org"),
            ("*.pythonhosted.org", "*.pythonhosted.org"),
            ("localhost:5432", "localhost:5432"),
            ("203.0.113.7", "203.0.113.7"),
            ("[2001:db8::1]:443", "[2001:db8::1]:443"),
            ("2001:db8::1", "2001:db8::1"),
            ("10.1.2.3/8", "10.0.0.0/8"),
            ("[fd00::/8]:5432", "[fd00::/8]:5432"),
            ("::ffff:10.0.0.1", "10.0.0.1"),
        ];
        for (text, shown) in table {
            assert_eq!(one(text).to_string(), shown, "{text}");
        }
    }

    #[test]
    fn presets_give_their_hosts_as_rules_that_do_not_name() {
        let rules = Rule::parse("@PyPI").unwrap();
        let shown: Vec<String> = rules.iter().map(Rule::to_string).collect();
        assert_eq!(
            shown,
            ["pypi.org (@pypi)", "files.pythonhosted.org (@pypi)"]
        );
        assert!(rules.iter().all(|rule| !rule.is_naming()));
        assert!(one("pypi.org").is_naming());
        assert!(!one("*.pypi.org").is_naming());
        assert!(one("10.0.0.0/8").is_naming());
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        let table = [
            ("", "has no host"),
            ("*", "would allow every host"),
            ("*:443", "would allow every host"),
            ("*.org", "whole top-level domain"),
            ("a.*.org", "not its whole first label"),
            ("*.*.org", "past its first label"),
            ("foo*.org", "not its whole first label"),
            ("example.org:0", "a port is a number from 1 to 65535"),
            ("example.org:70000", "a port is a number from 1 to 65535"),
            ("example.org:+80", "a port is a number from 1 to 65535"),
            ("example.org:http", "a port is a number from 1 to 65535"),
            ("[::1", "without its `]`"),
            ("[::1]x", "after its `]`"),
            ("10.0.0.0/33", "prefix length"),
            ("0.0.0.0/0", "would allow every address"),
            ("example.org/8", "not an address"),
            (
                "@nosuch",
                "the presets are @npm, @pypi, @crates, @go, @debian",
            ),
            ("a..b", "empty label"),
            ("2130706433", "ends in a number"),
        ];
        for (text, expected) in table {
            let error = Rule::parse(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn a_name_matches_on_a_label_boundary_only() {
        let table = [
            ("docs.python.org", "docs.python.org", true),
            ("docs.python.org", "DOCS.Python.org.", true),
            ("docs.python.org", "docs.python.org.evil.tld", false),
            ("docs.python.org", "evildocs.python.org", false),
            ("docs.python.org", "a.docs.python.org", false),
            ("*.x.org", "a.x.org", true),
            ("*.x.org", "a.b.x.org", true),
            ("*.x.org", "x.org", false),
            ("*.x.org", "evilx.org", false),
            ("*.x.org", "a.x.org.evil.tld", false),
            ("bücher.example", "xn--bcher-kva.example", true),
            ("*.xn--bcher-kva.example", "www.bücher.example", true),
        ];
        for (rule, host, expected) in table {
            assert_eq!(
                one(rule).matches_name(&name(host), 443),
                expected,
                "{rule} against {host}"
            );
        }
    }

    #[test]
    fn ports_and_addresses_match_as_written() {
        let local = one("localhost:5432");
        assert!(local.matches_name(&name("localhost"), 5432));
        assert!(!local.matches_name(&name("localhost"), 5433));
        assert!(one("localhost").matches_name(&name("localhost"), 1));
        let network = one("10.0.0.0/8:5432");
        assert!(network.matches_address("10.9.8.7".parse().unwrap(), 5432));
        assert!(network.matches_address("::ffff:10.9.8.7".parse().unwrap(), 5432));
        assert!(!network.matches_address("10.9.8.7".parse().unwrap(), 80));
        assert!(!network.matches_address("11.0.0.1".parse().unwrap(), 5432));
        assert!(!network.matches_name(&name("ten.example"), 5432));
        let v6 = one("fd00::/8");
        assert!(v6.matches_address("fd12::1".parse().unwrap(), 1));
        assert!(!v6.matches_address("fe80::1".parse().unwrap(), 1));
        assert!(!v6.matches_address("10.0.0.1".parse().unwrap(), 1));
        assert!(one("[::1]:80").matches_address("::1".parse().unwrap(), 80));
    }
}
