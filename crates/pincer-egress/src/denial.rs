//! Refused connections, as the caller reports them: a line on stderr, a stream-json event and
//! the result's `network_denials` (SPEC §20).
//!
//! The proxy refuses each connection it must, but reports a host once: the first refusal of a
//! host goes to the callback ([`DenialLog::new`]) and into the list [`DenialLog::denials`]
//! returns; later refusals of the same host only count. One host is one canonical spelling
//! (`Example.ORG.` and `example.org` are one), with or without a port.
//!
//! The command chooses what it asks for, so the log is bounded: past [`MAX_DENIED_HOSTS`] distinct
//! hosts, a refusal of a new host is only counted ([`DenialLog::unlisted`]), neither reported
//! nor kept.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::address::AddressKind;

/// Why a connection was refused.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum DenialReason {
    /// No allow rule covers the host and port.
    NotAllowed,
    /// A deny rule covers the host, the port or an address the host resolved to (deny wins).
    DeniedByRule {
        /// The deny rule, as [`crate::Rule`]'s `Display` writes it.
        rule: String,
    },
    /// The host resolved to (or is) a non-public address, and no rule names the host or the
    /// address.
    PrivateAddress { address: IpAddr, kind: AddressKind },
    /// The host's name could not be resolved (or resolved to no address).
    ResolutionFailed { error: String },
    /// What the client asked for is not a host name or address.
    InvalidHost { error: String },
}

impl DenialReason {
    /// The reason's name in JSON (`not_allowed`, `denied_by_rule`, `private_address`,
    /// `resolution_failed`, `invalid_host`).
    pub fn code(&self) -> &'static str {
        match self {
            DenialReason::NotAllowed => "not_allowed",
            DenialReason::DeniedByRule { .. } => "denied_by_rule",
            DenialReason::PrivateAddress { .. } => "private_address",
            DenialReason::ResolutionFailed { .. } => "resolution_failed",
            DenialReason::InvalidHost { .. } => "invalid_host",
        }
    }
}

impl fmt::Display for DenialReason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DenialReason::NotAllowed => formatter.write_str("no rule allows it"),
            DenialReason::DeniedByRule { rule } => write!(formatter, "denied by the rule {rule}"),
            DenialReason::PrivateAddress { address, kind } => {
                write!(formatter, "it is at {address}, {kind}, which no rule names")
            }
            DenialReason::ResolutionFailed { error } => {
                write!(formatter, "its name could not be resolved ({error})")
            }
            DenialReason::InvalidHost { error } => write!(formatter, "{error}"),
        }
    }
}

impl std::error::Error for DenialReason {}

/// How the client reached the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// An HTTP `CONNECT` tunnel (HTTPS, or anything tunnelled).
    Connect,
    /// A plain HTTP request in absolute form.
    Http,
    /// A SOCKS5 `CONNECT`.
    Socks5,
}

impl Protocol {
    /// Its word in the JSON forms (`connect`, `http`, `socks5`), as it serializes.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Connect => "connect",
            Protocol::Http => "http",
            Protocol::Socks5 => "socks5",
        }
    }
}

/// One refused host.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Denial {
    /// The host as the client asked for it, canonical where it could be read.
    pub host: String,
    /// The port of the first refused connection.
    pub port: u16,
    #[serde(flatten)]
    pub reason: DenialReason,
    pub protocol: Protocol,
    /// How many connections to this host were refused (1 when reported; the list from
    /// [`DenialLog::denials`] has the total).
    pub count: u64,
}

impl Denial {
    /// What a user can do about it, when a rule would help.
    pub fn hint(&self) -> Option<String> {
        match &self.reason {
            DenialReason::NotAllowed => Some(format!(
                "to allow it, pass --allow-host {} (or add it to [sandbox.network] allow)",
                host_pattern(&self.host, self.port)
            )),
            DenialReason::PrivateAddress { address, .. } => Some(format!(
                "a private address is reached only when a rule names the host itself \
                 (--allow-host {}) or the address ({})",
                host_pattern(&self.host, self.port),
                host_pattern(&address.to_string(), self.port)
            )),
            DenialReason::DeniedByRule { .. }
            | DenialReason::ResolutionFailed { .. }
            | DenialReason::InvalidHost { .. } => None,
        }
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "refused a connection to {}: {}",
            host_pattern(&self.host, self.port),
            self.reason
        )
    }
}

/// `host:port`, an IPv6 address in brackets.
fn host_pattern(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// How many distinct hosts the log keeps and reports.
pub const MAX_DENIED_HOSTS: usize = 1000;

/// What the caller does with each newly refused host.
pub type OnDenial = Arc<dyn Fn(&Denial) + Send + Sync>;

/// The hosts refused so far, each reported once (see the module comment).
#[derive(Clone)]
pub struct DenialLog {
    inner: Arc<Mutex<Entries>>,
    on_denial: Option<OnDenial>,
}

#[derive(Default)]
struct Entries {
    order: Vec<Denial>,
    index: HashMap<String, usize>,
    unlisted: u64,
}

impl fmt::Debug for DenialLog {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("DenialLog")
            .field("denials", &self.denials())
            .finish_non_exhaustive()
    }
}

impl DenialLog {
    /// A log that calls `on_denial` with the first refusal of each host.
    pub fn new(on_denial: Option<OnDenial>) -> DenialLog {
        DenialLog {
            inner: Arc::default(),
            on_denial,
        }
    }

    /// Note a refusal; report it when its host is new.
    pub fn record(&self, denial: Denial) {
        let first = {
            let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            let entries = &mut *entries;
            match entries.index.get(&denial.host) {
                Some(&at) => {
                    if let Some(known) = entries.order.get_mut(at) {
                        known.count += 1;
                    }
                    None
                }
                None if entries.order.len() >= MAX_DENIED_HOSTS => {
                    entries.unlisted += 1;
                    None
                }
                None => {
                    entries
                        .index
                        .insert(denial.host.clone(), entries.order.len());
                    let denial = Denial { count: 1, ..denial };
                    entries.order.push(denial.clone());
                    Some(denial)
                }
            }
        };
        // Called outside the lock: the callback may take its time.
        if let (Some(denial), Some(on_denial)) = (first, &self.on_denial) {
            on_denial(&denial);
        }
    }

    /// Refusals of hosts past the first [`MAX_DENIED_HOSTS`], neither reported nor listed.
    pub fn unlisted(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unlisted
    }

    /// Every refused host so far, in the order first refused, with counts.
    pub fn denials(&self) -> Vec<Denial> {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .order
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocols_word_is_its_json_form() {
        for protocol in [Protocol::Connect, Protocol::Http, Protocol::Socks5] {
            assert_eq!(
                serde_json::to_value(protocol).unwrap(),
                serde_json::Value::from(protocol.as_str())
            );
        }
    }

    fn denial(host: &str, port: u16) -> Denial {
        Denial {
            host: host.to_owned(),
            port,
            reason: DenialReason::NotAllowed,
            protocol: Protocol::Connect,
            count: 1,
        }
    }

    #[test]
    fn a_host_is_reported_once_and_counted_after() {
        let reported = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&reported);
        let log = DenialLog::new(Some(Arc::new(move |denial: &Denial| {
            sink.lock().unwrap().push(denial.to_string());
        })));
        log.record(denial("evil.tld", 443));
        log.record(denial("evil.tld", 80));
        log.record(denial("other.tld", 443));
        log.record(denial("evil.tld", 443));
        assert_eq!(
            *reported.lock().unwrap(),
            [
                "refused a connection to evil.tld:443: no rule allows it",
                "refused a connection to other.tld:443: no rule allows it"
            ]
        );
        let all = log.denials();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].port, all[0].count), (443, 3));
        assert_eq!(all[1].count, 1);
    }

    #[test]
    fn past_its_bound_the_log_only_counts_new_hosts() {
        let reported = Arc::new(Mutex::new(0_usize));
        let sink = Arc::clone(&reported);
        let log = DenialLog::new(Some(Arc::new(move |_: &Denial| {
            *sink.lock().unwrap() += 1;
        })));
        for index in 0..MAX_DENIED_HOSTS + 5 {
            log.record(denial(&format!("h{index}.example"), 443));
        }
        log.record(denial("h0.example", 443));
        assert_eq!(*reported.lock().unwrap(), MAX_DENIED_HOSTS);
        assert_eq!(log.denials().len(), MAX_DENIED_HOSTS);
        assert_eq!(log.denials()[0].count, 2);
        assert_eq!(log.unlisted(), 5);
    }

    #[test]
    fn a_denial_serializes_flat_with_its_reason_and_says_what_to_allow() {
        let denial = Denial {
            host: "db.internal".to_owned(),
            port: 5432,
            reason: DenialReason::PrivateAddress {
                address: "10.0.0.5".parse().unwrap(),
                kind: AddressKind::Private,
            },
            protocol: Protocol::Socks5,
            count: 1,
        };
        assert_eq!(
            serde_json::to_string(&denial).unwrap(),
            r#"{"host":"db.internal","port":5432,"reason":"private_address","address":"10.0.0.5","kind":"private","protocol":"socks5","count":1}"#
        );
        assert_eq!(
            denial.to_string(),
            "refused a connection to db.internal:5432: it is at 10.0.0.5, a private address \
             (RFC 1918), which no rule names"
        );
        assert_eq!(
            denial.hint().unwrap(),
            "a private address is reached only when a rule names the host itself \
             (--allow-host db.internal:5432) or the address (10.0.0.5:5432)"
        );
        let ipv6 = Denial {
            host: "2001:db8::1".to_owned(),
            ..denial
        };
        assert!(ipv6.to_string().contains("[2001:db8::1]:5432"));
    }
}
