//! The guard against server-side request forgery: `web_fetch` reaches public addresses only,
//! unless `tools.web_fetch.allow_private` says otherwise.
//!
//! What is not public is `pincer_egress::AddressKind`'s: loopback, the private ranges of RFC
//! 1918, shared address space (CGNAT), link-local (where cloud metadata services such as
//! 169.254.169.254 answer), unspecified, multicast, broadcast, documentation and other reserved
//! ranges, and their IPv6 counterparts; an IPv4 address embedded in IPv6 is judged as that IPv4
//! address.
//!
//! The check is made on the addresses connected to, not on names. A name is resolved by
//! [`GuardedResolver`], the client's own resolver: the addresses it returns are the only ones
//! the connection may use, so a name that resolves differently between a check and the
//! connection (DNS rebinding) gains nothing — there is no separate check. Addresses written in the
//! URL never reach a resolver and are checked by [`check_destination`] before every request, as
//! is every redirect target. `localhost` and `*.localhost` are refused by name (RFC 6761).
//!
//! Behind a proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, minus `NO_PROXY`) the proxy resolves
//! and connects: the proxy's own name is resolved without the guard (it is the network's chosen
//! way out, often on a private address), and a target name is resolved here too, as well as
//! this machine can, and refused when any of its addresses is not public. Where the names only
//! the proxy knows are concerned, the proxy's policy is the boundary.
//!
//! Under the run's network rules (SPEC §20) the decision is the egress proxy's, made by the
//! same code ([`Ruling`]): `Policy::admit` on the URL's host and port, then the addresses —
//! written out, pinned by `[sandbox.network] resolve`, loopback for `localhost`, or resolved —
//! through `Policy::check`. So a private address is reachable when the rules name its host or
//! the address, a deny rule on a network refuses the addresses it covers, and a pinned name
//! connects to its pinned addresses only; `allow_private` still lifts the private-address rule,
//! never a deny rule.
//!
//! The proxy's exemption holds for the connection to the proxy and nothing else: each request
//! gets its own resolver ([`GuardedResolver::for_request`]), which exempts the proxy of *that*
//! request, and a request that goes direct — its scheme not proxied, its host in `NO_PROXY`, a
//! redirect to the proxy's own name — exempts nothing, so the proxy's name (and every other
//! service on its machine) is judged like any other name.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use hyper_util::client::proxy::matcher::Matcher;
use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Why `address` is not public, or `None` when it is: the egress policy's classification, so
/// `web_fetch` and a sandboxed command's network judge an address alike (#50).
pub fn non_public(address: IpAddr) -> Option<&'static str> {
    pincer_egress::AddressKind::of(address).map(pincer_egress::AddressKind::description)
}

/// A destination the guard refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Blocked {
    /// The host as the URL names it.
    pub host: String,
    /// The address refused (`None` when refused by name).
    pub address: Option<IpAddr>,
    /// Why, as "a loopback address".
    pub kind: &'static str,
}

impl Blocked {
    fn describe(&self) -> String {
        match self.address {
            Some(address) if address.to_string() == self.host.trim_matches(['[', ']']) => {
                format!("{address} is {}", self.kind)
            }
            Some(address) => format!("{} resolves to {address}, {}", self.host, self.kind),
            None => format!("{} is {}", self.host, self.kind),
        }
    }
}

/// The proxies the environment configures, as reqwest reads them.
pub struct Proxies {
    matcher: Matcher,
}

impl Proxies {
    /// From `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (either case).
    pub fn from_env() -> Proxies {
        Proxies {
            matcher: Matcher::from_env(),
        }
    }

    /// The host of the proxy a request for `url` goes through, if any.
    pub fn proxy_host(&self, url: &Url) -> Option<String> {
        let uri: http::Uri = url.as_str().parse().ok()?;
        let intercept = self.matcher.intercept(&uri)?;
        intercept.uri().host().map(str::to_owned)
    }
}

/// A destination the network rules refused (SPEC §20), with the egress proxy's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct RuledOut {
    pub reason: pincer_egress::DenialReason,
}

/// The network rules' part of one request (SPEC §20): the rules and the admission of its URL
/// (`Policy::admit` passed).
#[derive(Debug, Clone)]
pub struct Ruling {
    pub rules: Arc<pincer_egress::Policy>,
    pub admission: pincer_egress::Admission,
    /// `tools.web_fetch.allow_private`: the private-address rule is lifted, not the deny rules.
    pub allow_private: bool,
}

impl Ruling {
    /// The addresses the request may connect to: the admitted ones (written out, pinned,
    /// loopback) or the name resolved now, every one checked by the rules as the proxy checks
    /// them. The connection uses only these.
    pub async fn addresses(&self) -> Result<Vec<SocketAddr>, RuledOut> {
        use pincer_egress::{DenialReason, Lookup};
        let addresses: Vec<SocketAddr> = match &self.admission.lookup {
            Lookup::Addresses(addresses) => addresses.clone(),
            Lookup::Resolve(name) => tokio::net::lookup_host((name.as_str(), self.admission.port))
                .await
                .map_err(|error| RuledOut {
                    reason: DenialReason::ResolutionFailed {
                        error: error.to_string(),
                    },
                })?
                .collect(),
        };
        let mut admission = self.admission.clone();
        admission.named |= self.allow_private;
        self.rules
            .check(&admission, &addresses)
            .map_err(|reason| RuledOut { reason })?;
        Ok(addresses)
    }
}

/// The client's resolver: system resolution (`getaddrinfo`), then only the public addresses are
/// handed to the connector, or none and an error naming the refused one.
pub struct GuardedResolver {
    allow_private: bool,
    /// The proxy host of the one request this resolver serves, resolved without the guard;
    /// `None` for a direct request.
    exempt: Option<String>,
    /// Under network rules, what they say about this request's host: its addresses instead
    /// of the guard's.
    ruling: Option<Ruling>,
}

impl GuardedResolver {
    /// The resolver of one request for `url`: the proxy that carries it, if any, is exempt —
    /// a proxied request resolves no other name here, the proxy resolves the target — and a
    /// direct request exempts nothing.
    pub fn for_request(allow_private: bool, proxies: &Proxies, url: &Url) -> GuardedResolver {
        GuardedResolver {
            allow_private,
            exempt: proxies.proxy_host(url),
            ruling: None,
        }
    }

    /// The same resolver, with the network rules' ruling on the request's host (SPEC §20).
    pub fn ruled(mut self, ruling: Option<Ruling>) -> GuardedResolver {
        self.ruling = ruling;
        self
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let exempt = self
            .exempt
            .as_ref()
            .is_some_and(|exempt| exempt.eq_ignore_ascii_case(&host));
        let guarded = !self.allow_private && !exempt;
        let ruling = self.ruling.clone().filter(|_| !exempt);
        Box::pin(async move {
            if let Some(ruling) = ruling {
                // The rules' addresses, pinned or resolved, each checked: no second lookup.
                return match ruling.addresses().await {
                    Ok(addresses) => Ok(Box::new(addresses.into_iter()) as Addrs),
                    Err(ruled) => Err(Box::new(ruled) as Box<dyn std::error::Error + Send + Sync>),
                };
            }
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !guarded {
                return Ok(Box::new(found.into_iter()) as Addrs);
            }
            let (public, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
                .into_iter()
                .partition(|address| non_public(address.ip()).is_none());
            if public.is_empty()
                && let Some(address) = refused.first()
            {
                return Err(Box::new(Blocked {
                    host,
                    address: Some(address.ip()),
                    kind: non_public(address.ip()).unwrap_or("not public"),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

/// Check the destination of one request before it is sent (see the module comment): an address
/// in the URL, a `localhost` name, and behind a proxy the addresses this machine resolves the
/// name to.
pub async fn check_destination(
    url: &Url,
    allow_private: bool,
    proxies: &Proxies,
) -> Result<(), Blocked> {
    if allow_private {
        return Ok(());
    }
    let literal = |address: IpAddr| match non_public(address) {
        Some(kind) => Err(Blocked {
            host: address.to_string(),
            address: Some(address),
            kind,
        }),
        None => Ok(()),
    };
    match url.host() {
        Some(url::Host::Ipv4(address)) => literal(IpAddr::V4(address)),
        Some(url::Host::Ipv6(address)) => literal(IpAddr::V6(address)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                return Err(Blocked {
                    host: name,
                    address: None,
                    kind: "a loopback name",
                });
            }
            if proxies.proxy_host(url).is_none() {
                // Resolved and checked by the client's resolver at connection time.
                return Ok(());
            }
            // Behind a proxy, as well as this machine can tell; a name it cannot resolve is
            // left to the proxy.
            let Ok(found) = tokio::net::lookup_host((name.as_str(), 0)).await else {
                return Ok(());
            };
            let found: Vec<SocketAddr> = found.collect();
            for address in found {
                if let Some(kind) = non_public(address.ip()) {
                    return Err(Blocked {
                        host: name,
                        address: Some(address.ip()),
                        kind,
                    });
                }
            }
            Ok(())
        }
        None => Err(Blocked {
            host: String::new(),
            address: None,
            kind: "not a network host",
        }),
    }
}

/// Check the destination of one request under network rules before it is sent: addresses
/// the rules fix (written out, pinned, loopback) are checked here, as are, behind a proxy, the
/// addresses this machine resolves the name to (a name it cannot resolve is left to the
/// proxy); a name resolved for a direct request is checked by the client's resolver.
pub async fn check_ruled(url: &Url, ruling: &Ruling, proxies: &Proxies) -> Result<(), RuledOut> {
    let proxied = proxies.proxy_host(url).is_some();
    match &ruling.admission.lookup {
        pincer_egress::Lookup::Resolve(_) if !proxied => Ok(()),
        pincer_egress::Lookup::Resolve(_) => match ruling.addresses().await {
            Err(RuledOut {
                reason: pincer_egress::DenialReason::ResolutionFailed { .. },
            }) => Ok(()),
            other => other.map(|_| ()),
        },
        pincer_egress::Lookup::Addresses(_) => ruling.addresses().await.map(|_| ()),
    }
}

/// The `T` somewhere in `error`'s chain of causes (a refusal by the resolver, wrapped by the
/// connector and the client).
fn cause_in<T: std::error::Error + Clone + 'static>(
    error: &(dyn std::error::Error + 'static),
) -> Option<T> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(found) = error.downcast_ref::<T>() {
            return Some(found.clone());
        }
        current = error.source();
    }
    None
}

/// The [`Blocked`] somewhere in `error`'s chain of causes.
pub fn blocked_in(error: &(dyn std::error::Error + 'static)) -> Option<Blocked> {
    cause_in(error)
}

/// The [`RuledOut`] somewhere in `error`'s chain of causes.
pub fn ruled_out_in(error: &(dyn std::error::Error + 'static)) -> Option<RuledOut> {
    cause_in(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_link_local_and_reserved_addresses_are_not_public() {
        let refused = [
            ("127.0.0.1", "a loopback address"),
            ("127.255.0.9", "a loopback address"),
            ("10.1.2.3", "a private address (RFC 1918)"),
            ("172.16.0.1", "a private address (RFC 1918)"),
            ("172.31.255.255", "a private address (RFC 1918)"),
            ("192.168.1.1", "a private address (RFC 1918)"),
            (
                "100.64.0.1",
                "a shared address (carrier-grade NAT, RFC 6598)",
            ),
            (
                "100.127.255.254",
                "a shared address (carrier-grade NAT, RFC 6598)",
            ),
            (
                "169.254.169.254",
                "a link-local address (where cloud metadata services answer)",
            ),
            ("0.0.0.0", "an unspecified address"),
            ("224.0.0.1", "a multicast address"),
            ("255.255.255.255", "the broadcast address"),
            ("240.0.0.1", "a reserved address"),
            ("192.0.2.7", "a documentation address"),
            ("198.18.0.1", "a reserved address"),
            ("::1", "a loopback address"),
            ("::", "an unspecified address"),
            ("fd00:ec2::254", "a unique-local address (IPv6 ULA)"),
            ("fc00::1", "a unique-local address (IPv6 ULA)"),
            (
                "fe80::1",
                "a link-local address (where cloud metadata services answer)",
            ),
            ("fec0::1", "a site-local address"),
            ("ff02::1", "a multicast address"),
            ("2001:db8::1", "a documentation address"),
            // IPv4 inside IPv6 is judged as the IPv4 address.
            ("::ffff:127.0.0.1", "a loopback address"),
            (
                "::ffff:169.254.169.254",
                "a link-local address (where cloud metadata services answer)",
            ),
            ("::10.0.0.1", "a private address (RFC 1918)"),
            ("64:ff9b::192.168.0.1", "a private address (RFC 1918)"),
            ("2002:0a00:0001::1", "a private address (RFC 1918)"),
        ];
        for (text, kind) in refused {
            let address: IpAddr = text.parse().unwrap();
            assert_eq!(non_public(address), Some(kind), "{text}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
        ] {
            let address: IpAddr = public.parse().unwrap();
            assert_eq!(non_public(address), None, "{public}");
        }
    }

    #[tokio::test]
    async fn an_address_in_the_url_is_checked_before_any_request_and_allow_private_lifts_it() {
        let proxies = Proxies {
            matcher: Matcher::builder().build(),
        };
        let check = |url: &str, allow: bool| {
            let url = Url::parse(url).unwrap();
            let proxies = &proxies;
            async move { check_destination(&url, allow, proxies).await }
        };
        let cases = [
            ("http://127.0.0.1:8080/", "127.0.0.1 is a loopback address"),
            // Other spellings of loopback, as the URL parser reads them.
            ("http://2130706433/", "127.0.0.1 is a loopback address"),
            ("http://0x7f.1/", "127.0.0.1 is a loopback address"),
            (
                "http://169.254.169.254/latest/meta-data/",
                "169.254.169.254 is a link-local address (where cloud metadata services answer)",
            ),
            ("http://[::1]/", "::1 is a loopback address"),
            (
                "http://[::ffff:10.0.0.1]/",
                "::ffff:10.0.0.1 is a private address (RFC 1918)",
            ),
            ("http://localhost:3000/", "localhost is a loopback name"),
            ("http://api.localhost./", "api.localhost is a loopback name"),
        ];
        for (url, message) in cases {
            let error = check(url, false).await.unwrap_err();
            assert_eq!(error.to_string(), message, "{url}");
            assert_eq!(check(url, true).await, Ok(()), "{url}");
        }
        // A public literal passes; a name is left to the resolver when no proxy is involved.
        assert_eq!(check("https://1.1.1.1/", false).await, Ok(()));
        assert_eq!(check("https://docs.rs/", false).await, Ok(()));
    }

    #[tokio::test]
    async fn the_resolver_hands_out_public_addresses_only() {
        let proxies = Proxies {
            matcher: Matcher::builder().build(),
        };
        let url = Url::parse("http://localhost/").unwrap();
        let guarded = GuardedResolver::for_request(false, &proxies, &url);
        let error = match guarded.resolve("localhost".parse().unwrap()).await {
            Ok(addresses) => panic!("resolved: {:?}", addresses.collect::<Vec<_>>()),
            Err(error) => error,
        };
        let blocked = blocked_in(error.as_ref()).unwrap();
        assert_eq!(blocked.host, "localhost");
        assert!(blocked.kind.contains("loopback"), "{blocked}");
        let open = GuardedResolver::for_request(true, &proxies, &url);
        let addresses: Vec<SocketAddr> = open
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addresses.iter().all(|address| address.ip().is_loopback()));
        assert!(!addresses.is_empty());
    }

    #[test]
    fn the_proxy_of_a_url_comes_from_the_proxy_variables_minus_no_proxy() {
        let proxies = Proxies {
            matcher: Matcher::builder()
                .https("http://proxy.corp.internal:3128")
                .no("docs.internal")
                .build(),
        };
        let url = |text: &str| Url::parse(text).unwrap();
        assert_eq!(
            proxies.proxy_host(&url("https://docs.rs/")).as_deref(),
            Some("proxy.corp.internal")
        );
        assert_eq!(proxies.proxy_host(&url("https://docs.internal/")), None);
        assert_eq!(proxies.proxy_host(&url("http://docs.rs/")), None);
    }

    #[test]
    fn only_a_proxied_request_exempts_its_proxys_name_from_the_guard() {
        let proxies = Proxies {
            matcher: Matcher::builder()
                .https("http://proxy.corp.internal:3128")
                .no("docs.internal,proxy.corp.internal")
                .build(),
        };
        let exempt = |text: &str| {
            GuardedResolver::for_request(false, &proxies, &Url::parse(text).unwrap()).exempt
        };
        assert_eq!(
            exempt("https://docs.rs/").as_deref(),
            Some("proxy.corp.internal")
        );
        // Direct requests: a scheme the proxy does not carry, a host in NO_PROXY, the proxy's
        // own name (where a redirect may point).
        assert_eq!(exempt("http://docs.rs/"), None);
        assert_eq!(exempt("https://docs.internal/"), None);
        assert_eq!(exempt("https://proxy.corp.internal:8443/admin"), None);
        assert_eq!(exempt("http://proxy.corp.internal:3128/"), None);
    }
}
