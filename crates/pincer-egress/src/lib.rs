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
