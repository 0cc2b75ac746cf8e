//! pincer's network by name (SPEC §20): a sandboxed command reaches the hosts a task needs and
//! nothing else.
//!
//! Three parts, for three places:
//! - **The policy** ([`Policy`], feature `policy`): rules from `--allow-host` and
//!   `[sandbox.network]`, pure and unit-tested — which host and port may go out, to which
//!   addresses. Nothing is allowed by default; deny wins; private addresses need a rule that
//!   names them.
//! - **The proxy** ([`proxy`], feature `proxy`, the default): run by pincer, outside the
//!   command's network namespace, on a unix socket (and optionally TCP loopback). It speaks HTTP
//!   `CONNECT`, plain HTTP forwarding and SOCKS5 on one listener, resolves every name itself
//!   per connection, checks every address and dials the one it checked. TLS is never
//!   intercepted. Refusals go to a [`DenialLog`].
//! - **The forwarder** ([`forwarder`], std only, always built): runs inside the command's
//!   network namespace (in the sandbox's launcher), listens on the namespace's loopback and
//!   pipes each connection to the proxy's unix socket. `default-features = false` builds only
//!   it, so the launcher links neither tokio nor hyper.
//!
//! The crate's README has the rules, the presets with their hosts, and how the sandbox plugs
//! the three together.
//!
//! ```
//! # #[cfg(feature = "policy")] {
//! use pincer_egress::{DenialReason, Host, Lookup, Policy};
//!
//! let mut policy = Policy::new();
//! policy.allow("@npm")?.allow("localhost:5432")?.deny("169.254.0.0/16")?;
//! policy.pin("registry.npmjs.org", &["127.0.0.1:4873"])?;
//!
//! // A name no rule allows is refused before anything is resolved.
//! let evil = Host::parse("registry.npmjs.org.evil.tld")?;
//! assert_eq!(policy.admit(&evil, 443), Err(DenialReason::NotAllowed));
//!
//! // A pinned name goes to its pinned address, which the user named.
//! let npm = policy.admit(&Host::parse("registry.npmjs.org")?, 443)?;
//! let Lookup::Addresses(addresses) = &npm.lookup else { unreachable!() };
//! assert_eq!(addresses[0].to_string(), "127.0.0.1:4873");
//! assert_eq!(policy.check(&npm, addresses), Ok(()));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod forwarder;

#[cfg(feature = "policy")]
mod address;
#[cfg(feature = "policy")]
mod denial;
#[cfg(feature = "policy")]
mod host;
#[cfg(feature = "policy")]
mod policy;
#[cfg(feature = "policy")]
pub mod presets;
#[cfg(feature = "policy")]
mod rule;

#[cfg(feature = "proxy")]
pub mod proxy;
#[cfg(feature = "proxy")]
mod resolve;

#[cfg(feature = "policy")]
pub use address::AddressKind;
#[cfg(feature = "policy")]
pub use denial::{Denial, DenialLog, DenialReason, MAX_DENIED_HOSTS, OnDenial, Protocol};
#[cfg(feature = "policy")]
pub use host::{DomainName, Host, HostError};
#[cfg(feature = "policy")]
pub use policy::{Admission, Lookup, Pin, Policy};
#[cfg(feature = "policy")]
pub use rule::{Rule, RuleError, Source, Target};

#[cfg(feature = "proxy")]
pub use resolve::{Resolve, Resolving, StaticResolver, SystemResolver};
