//! The decision, without I/O: may a connection to this host and port go out, and to which
//! addresses (SPEC §20).
//!
//! A connection is decided in two steps, so that a name no rule allows is never even resolved
//! (a DNS query for `secret.attacker.example` carries the secret out by itself):
//! 1. [`Policy::admit`] looks at the host and port only. A deny rule that covers them refuses
//!    (deny wins); else an allow rule must cover them. It answers how to find the addresses: the
//!    address written out, the user's pinned addresses (`[sandbox.network] resolve`), loopback for
//!    `localhost` (RFC 6761, never the resolver), or a name to resolve.
//! 2. [`Policy::check`] looks at every address the connection would dial. A deny rule that
//!    covers one refuses. A non-public one (see [`AddressKind`]) is refused unless the user named
//!    it: an allow rule that covers the host is written by the user and spells the host out (not
//!    a wildcard, not a preset), the addresses are pinned by the user, or an allow rule the user
//!    wrote covers the address itself. One refused address refuses the connection, as
//!    `web_fetch`'s guard does: a name that answers with a public and a private address is
//!    suspect as a whole.
//!
//! The caller dials exactly the addresses it checked: there is no second resolution to rebind.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::address::AddressKind;
use crate::denial::DenialReason;
use crate::host::{DomainName, Host};
use crate::rule::{Rule, RuleError, Source, Target, split_port};

/// Addresses the user pinned for a name (`[sandbox.network] resolve`, like curl's `--resolve`
/// and `--connect-to`): the proxy dials these instead of resolving the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub name: DomainName,
    /// `None`: every port of the name.
    pub port: Option<u16>,
    /// Each address with the port to dial there (`None`: the port asked for).
    pub addresses: Vec<(IpAddr, Option<u16>)>,
}

/// The rules in force: allow, deny, and pinned addresses. Empty, it allows nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    pins: Vec<Pin>,
}

/// How to find the addresses of an admitted connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// These, and no other: the address written out, pinned addresses, or loopback.
    Addresses(Vec<SocketAddr>),
    /// Resolve the name, then [`Policy::check`] every address before dialing one.
    Resolve(DomainName),
}

/// A connection that passed [`Policy::admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub host: Host,
    pub port: u16,
    pub lookup: Lookup,
    /// Whether the user named this host (see the module comment): its private addresses are
    /// allowed.
    pub named: bool,
}

impl Policy {
    /// A policy that allows nothing.
    pub fn new() -> Policy {
        Policy::default()
    }

    /// Add an allow rule (`--allow-host PATTERN`, `[sandbox.network] allow`).
    pub fn allow(&mut self, pattern: &str) -> Result<&mut Policy, RuleError> {
        self.allow.extend(Rule::parse(pattern)?);
        Ok(self)
    }

    /// Add a deny rule (`[sandbox.network] deny`).
    pub fn deny(&mut self, pattern: &str) -> Result<&mut Policy, RuleError> {
        self.deny.extend(Rule::parse(pattern)?);
        Ok(self)
    }

    /// Pin `host` (a name, optionally `:PORT`) to `addresses` (each an address, optionally with
    /// a port: `127.0.0.1`, `127.0.0.1:8080`, `[::1]:8080`). A later pin of the same host and
    /// port replaces an earlier one.
    pub fn pin<S: AsRef<str>>(
        &mut self,
        host: &str,
        addresses: &[S],
    ) -> Result<&mut Policy, RuleError> {
        let error = |problem: String| RuleError {
            rule: format!("resolve {host:?}"),
            problem,
        };
        let (name, port) = split_port(host.trim()).map_err(error)?;
        let name = DomainName::parse(name).map_err(|e| error(e.to_string()))?;
        if addresses.is_empty() {
            return Err(error("pins no address".to_owned()));
        }
        let addresses = addresses
            .iter()
            .map(|text| pinned_address(text.as_ref()).map_err(error))
            .collect::<Result<Vec<_>, _>>()?;
        self.pins
            .retain(|pin| !(pin.name == name && pin.port == port));
        self.pins.push(Pin {
            name,
            port,
            addresses,
        });
        Ok(self)
    }

    /// Whether no rule allows anything (then the network stays closed).
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty()
    }

    pub fn allowed(&self) -> &[Rule] {
        &self.allow
    }

    pub fn denied(&self) -> &[Rule] {
        &self.deny
    }

    pub fn pins(&self) -> &[Pin] {
        &self.pins
    }

    /// The loopback ports the user's rules name (`localhost:5432`, `127.0.0.1:6379`,
    /// `[::1]:8080`), each with the destination a forwarder's fixed route asks the proxy for: a
    /// client that knows nothing of proxies reaches them on the namespace's own loopback. A
    /// port named twice keeps its first rule.
    pub fn loopback_routes(&self) -> Vec<(u16, String)> {
        let mut routes: Vec<(u16, String)> = Vec::new();
        for rule in &self.allow {
            let (Some(port), Source::Written) = (rule.port, rule.source) else {
                continue;
            };
            let destination = match &rule.target {
                Target::Name(name) if name.is_localhost() => format!("{name}:{port}"),
                Target::Address(address) if address.is_loopback() => {
                    Host::Address(*address).with_port(port)
                }
                _ => continue,
            };
            if !routes.iter().any(|(known, _)| *known == port) {
                routes.push((port, destination));
            }
        }
        routes
    }

    /// Step 1: may a connection to `host`:`port` go out, and where are its addresses.
    pub fn admit(&self, host: &Host, port: u16) -> Result<Admission, DenialReason> {
        let covers = |rule: &Rule| match host {
            Host::Name(name) => rule.matches_name(name, port),
            Host::Address(address) => rule.matches_address(*address, port),
        };
        if let Some(rule) = self.deny.iter().find(|rule| covers(rule)) {
            return Err(DenialReason::DeniedByRule {
                rule: rule.to_string(),
            });
        }
        let allowing: Vec<&Rule> = self.allow.iter().filter(|rule| covers(rule)).collect();
        if allowing.is_empty() {
            return Err(DenialReason::NotAllowed);
        }
        let mut named = allowing.iter().any(|rule| rule.is_naming());
        let lookup = match host {
            Host::Address(address) => Lookup::Addresses(vec![SocketAddr::new(*address, port)]),
            Host::Name(name) => match self.pinned(name, port) {
                Some(addresses) => {
                    named = true;
                    Lookup::Addresses(addresses)
                }
                None if name.is_localhost() => Lookup::Addresses(vec![
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
                    SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
                ]),
                None => Lookup::Resolve(name.clone()),
            },
        };
        Ok(Admission {
            host: host.clone(),
            port,
            lookup,
            named,
        })
    }

    /// Step 2: may the admitted connection dial `addresses` (all of them are checked; the
    /// caller dials only these).
    pub fn check(
        &self,
        admission: &Admission,
        addresses: &[SocketAddr],
    ) -> Result<(), DenialReason> {
        if addresses.is_empty() {
            return Err(DenialReason::ResolutionFailed {
                error: "the name has no address".to_owned(),
            });
        }
        for socket in addresses {
            let (address, port) = (socket.ip().to_canonical(), socket.port());
            if let Some(rule) = self
                .deny
                .iter()
                .find(|rule| rule.matches_address(address, port))
            {
                return Err(DenialReason::DeniedByRule {
                    rule: rule.to_string(),
                });
            }
            if let Some(kind) = AddressKind::of(address) {
                let named_address = self
                    .allow
                    .iter()
                    .any(|rule| rule.is_naming() && rule.matches_address(address, port));
                if !(admission.named || named_address) {
                    return Err(DenialReason::PrivateAddress { address, kind });
                }
            }
        }
        Ok(())
    }

    /// The pinned addresses of `name` for `port`: a pin for that port wins over one for every
    /// port.
    fn pinned(&self, name: &DomainName, port: u16) -> Option<Vec<SocketAddr>> {
        let pin = self
            .pins
            .iter()
            .find(|pin| pin.name == *name && pin.port == Some(port))
            .or_else(|| {
                self.pins
                    .iter()
                    .find(|pin| pin.name == *name && pin.port.is_none())
            })?;
        Some(
            pin.addresses
                .iter()
                .map(|(address, to)| SocketAddr::new(*address, to.unwrap_or(port)))
                .collect(),
        )
    }
}

fn pinned_address(text: &str) -> Result<(IpAddr, Option<u16>), String> {
    let text = text.trim();
    let (address, port) = split_port(text)?;
    let address: IpAddr = address.parse().map_err(|_| {
        format!(
            "pins {text:?}, which is not an address (write 127.0.0.1, 127.0.0.1:8080 or [::1]:8080)"
        )
    })?;
    Ok((address.to_canonical(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> Policy {
        let mut policy = Policy::new();
        for rule in allow {
            policy.allow(rule).unwrap();
        }
        for rule in deny {
            policy.deny(rule).unwrap();
        }
        policy
    }

    fn host(text: &str) -> Host {
        Host::parse(text).unwrap()
    }

    fn sockets(addresses: &[&str], port: u16) -> Vec<SocketAddr> {
        addresses
            .iter()
            .map(|text| SocketAddr::new(text.parse().unwrap(), port))
            .collect()
    }

    /// The whole decision for a host that resolves to `resolved` (a pin or `localhost` skips
    /// the resolver), as a short word for the tables below.
    fn verdict(policy: &Policy, target: &str, port: u16, resolved: &[&str]) -> String {
        let admission = match policy.admit(&host(target), port) {
            Ok(admission) => admission,
            Err(reason) => return reason.code().to_owned(),
        };
        let addresses = match &admission.lookup {
            Lookup::Addresses(addresses) => addresses.clone(),
            Lookup::Resolve(_) => sockets(resolved, port),
        };
        match policy.check(&admission, &addresses) {
            Ok(()) => "allowed".to_owned(),
            Err(reason) => reason.code().to_owned(),
        }
    }

    const PUBLIC: &[&str] = &["93.184.215.14"];

    #[test]
    fn names_ports_and_presets_decide_by_table() {
        let rules = policy(
            &[
                "registry.npmjs.org",
                "*.pythonhosted.org",
                "docs.python.org:443",
                "localhost:5432",
                "@crates",
                "203.0.113.0/24:443",
            ],
            &["evil.pythonhosted.org", "static.crates.io:80"],
        );
        let table: &[(&str, u16, &[&str], &str)] = &[
            ("registry.npmjs.org", 443, PUBLIC, "allowed"),
            ("REGISTRY.npmjs.org.", 80, PUBLIC, "allowed"),
            ("registry.npmjs.org.evil.tld", 443, PUBLIC, "not_allowed"),
            ("npmjs.org", 443, PUBLIC, "not_allowed"),
            ("files.pythonhosted.org", 443, PUBLIC, "allowed"),
            ("pythonhosted.org", 443, PUBLIC, "not_allowed"),
            ("evilpythonhosted.org", 443, PUBLIC, "not_allowed"),
            ("evil.pythonhosted.org", 443, PUBLIC, "denied_by_rule"),
            ("docs.python.org", 443, PUBLIC, "allowed"),
            ("docs.python.org", 80, PUBLIC, "not_allowed"),
            ("docs.python.org.evil.tld", 443, PUBLIC, "not_allowed"),
            ("localhost", 5432, &[], "allowed"),
            ("localhost", 5433, &[], "not_allowed"),
            ("127.0.0.1", 5432, &[], "not_allowed"),
            ("index.crates.io", 443, PUBLIC, "allowed"),
            ("static.crates.io", 443, PUBLIC, "allowed"),
            ("static.crates.io", 80, PUBLIC, "denied_by_rule"),
            ("203.0.113.9", 443, &[], "allowed"),
            ("203.0.113.9", 80, &[], "not_allowed"),
            ("93.184.215.14", 443, &[], "not_allowed"),
            ("example.com", 443, PUBLIC, "not_allowed"),
        ];
        for (target, port, resolved, expected) in table {
            assert_eq!(
                verdict(&rules, target, *port, resolved),
                *expected,
                "{target}:{port}"
            );
        }
    }

    #[test]
    fn a_private_address_is_reached_only_when_a_rule_names_it() {
        let rules = policy(
            &[
                "*.corp.example",
                "db.corp.example:5432",
                "@npm",
                "build.example",
                "*.lab.example",
                "10.9.0.0/16",
            ],
            &[],
        );
        let table: &[(&str, u16, &[&str], &str)] = &[
            // A wildcard does not name: its private answers are refused.
            ("wiki.corp.example", 443, &["10.0.0.7"], "private_address"),
            (
                "wiki.corp.example",
                443,
                &["169.254.169.254"],
                "private_address",
            ),
            (
                "wiki.corp.example",
                443,
                &["::ffff:127.0.0.1"],
                "private_address",
            ),
            ("wiki.corp.example", 443, &["0.0.0.0"], "private_address"),
            ("wiki.corp.example", 443, &["fd00::1"], "private_address"),
            ("wiki.corp.example", 443, &["100.64.0.1"], "private_address"),
            ("wiki.corp.example", 443, &["224.0.0.1"], "private_address"),
            // One private address among public ones refuses the connection.
            (
                "wiki.corp.example",
                443,
                &["93.184.215.14", "10.0.0.7"],
                "private_address",
            ),
            ("wiki.corp.example", 443, PUBLIC, "allowed"),
            // The exact name, written by the user, names it.
            ("db.corp.example", 5432, &["10.0.0.8"], "allowed"),
            // A preset does not name its hosts.
            ("registry.npmjs.org", 443, &["127.0.0.1"], "private_address"),
            ("build.example", 443, &["192.168.1.4"], "allowed"),
            // An address rule names the addresses it covers, whichever name led there.
            ("ci.lab.example", 443, &["10.9.3.4"], "allowed"),
            ("ci.lab.example", 443, &["10.8.3.4"], "private_address"),
            ("ci.lab.example", 443, &[], "resolution_failed"),
        ];
        for (target, port, resolved, expected) in table {
            assert_eq!(
                verdict(&rules, target, *port, resolved),
                *expected,
                "{target}:{port} at {resolved:?}"
            );
        }
    }

    #[test]
    fn deny_wins_over_allow_by_name_by_port_and_by_address() {
        let rules = policy(
            &["*.example.org", "api.example.org", "10.0.0.0/8"],
            &["api.example.org:80", "169.254.0.0/16", "10.1.0.0/16"],
        );
        assert_eq!(verdict(&rules, "api.example.org", 443, PUBLIC), "allowed");
        assert_eq!(
            verdict(&rules, "api.example.org", 80, PUBLIC),
            "denied_by_rule"
        );
        // An address a name resolves to is held to the deny rules too.
        assert_eq!(
            verdict(&rules, "api.example.org", 443, &["169.254.169.254"]),
            "denied_by_rule"
        );
        assert_eq!(verdict(&rules, "10.2.0.1", 22, &[]), "allowed");
        assert_eq!(verdict(&rules, "10.1.0.1", 22, &[]), "denied_by_rule");
        assert_eq!(
            rules.admit(&host("api.example.org"), 80),
            Err(DenialReason::DeniedByRule {
                rule: "api.example.org:80".to_owned()
            })
        );
    }

    #[test]
    fn a_pinned_name_dials_its_pinned_addresses_and_counts_as_named() {
        let mut rules = policy(&["@npm", "*.corp.test"], &["10.66.0.0/16"]);
        rules
            .pin("registry.npmjs.org", &["127.0.0.1"])
            .unwrap()
            .pin("registry.npmjs.org:80", &["127.0.0.1:8080", "[::1]:8080"])
            .unwrap()
            .pin("stand-in.corp.test", &["10.66.0.1"])
            .unwrap();
        let admission = rules.admit(&host("registry.npmjs.org"), 443).unwrap();
        assert_eq!(
            admission.lookup,
            Lookup::Addresses(sockets(&["127.0.0.1"], 443))
        );
        assert!(admission.named);
        assert_eq!(verdict(&rules, "registry.npmjs.org", 443, &[]), "allowed");
        assert_eq!(
            rules.admit(&host("registry.npmjs.org"), 80).unwrap().lookup,
            Lookup::Addresses(vec![
                "127.0.0.1:8080".parse().unwrap(),
                "[::1]:8080".parse().unwrap()
            ])
        );
        // A pin routes a name; it does not allow one, and deny still wins.
        assert_eq!(
            verdict(&rules, "stand-in.corp.test", 443, &[]),
            "denied_by_rule"
        );
        rules.pin("unlisted.example", &["127.0.0.1"]).unwrap();
        assert_eq!(verdict(&rules, "unlisted.example", 443, &[]), "not_allowed");
    }

    #[test]
    fn localhost_is_loopback_and_never_the_resolver() {
        let rules = policy(&["localhost:5432", "app.localhost:8080"], &[]);
        assert_eq!(
            rules.admit(&host("localhost"), 5432).unwrap().lookup,
            Lookup::Addresses(sockets(&["127.0.0.1", "::1"], 5432))
        );
        assert_eq!(verdict(&rules, "localhost", 5432, &[]), "allowed");
        assert_eq!(
            rules.admit(&host("app.localhost"), 8080).unwrap().lookup,
            Lookup::Addresses(sockets(&["127.0.0.1", "::1"], 8080))
        );
        assert_eq!(verdict(&rules, "app.localhost", 80, &[]), "not_allowed");
        assert!(Rule::parse("*.localhost").is_err());
    }

    #[test]
    fn loopback_rules_with_a_port_become_fixed_routes() {
        let rules = policy(
            &[
                "localhost:5432",
                "127.0.0.1:6379",
                "[::1]:8080",
                "localhost",
                "app.localhost:3000",
                "127.0.0.1:5432",
                "registry.npmjs.org:443",
                "10.0.0.1:22",
                "127.0.0.0/8:9000",
            ],
            &[],
        );
        assert_eq!(
            rules.loopback_routes(),
            [
                (5432, "localhost:5432".to_owned()),
                (6379, "127.0.0.1:6379".to_owned()),
                (8080, "[::1]:8080".to_owned()),
                (3000, "app.localhost:3000".to_owned()),
            ]
        );
    }

    #[test]
    fn nothing_is_allowed_by_default() {
        let rules = Policy::new();
        assert!(rules.is_empty());
        assert_eq!(verdict(&rules, "example.org", 443, PUBLIC), "not_allowed");
        assert_eq!(verdict(&rules, "localhost", 80, &[]), "not_allowed");
        assert_eq!(verdict(&rules, "1.1.1.1", 53, &[]), "not_allowed");
    }

    #[test]
    fn bad_pins_say_what_is_wrong() {
        let mut rules = Policy::new();
        for (host, addresses, expected) in [
            (
                "*.example.org",
                vec!["127.0.0.1"],
                "cannot be in a host name",
            ),
            ("example.org", vec![], "pins no address"),
            ("example.org", vec!["localhost"], "not an address"),
            ("example.org:x", vec!["127.0.0.1"], "a port is a number"),
        ] {
            let error = rules.pin(host, &addresses).unwrap_err().to_string();
            assert!(error.contains(expected), "{host}: {error}");
        }
    }
}
