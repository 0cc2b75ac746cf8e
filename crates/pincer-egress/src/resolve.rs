//! How the proxy turns a name into addresses. The system's resolver by default; a caller (a
//! test, or pincer with a resolver of its own) may hand in another. Pinned addresses and
//! `localhost` never get here (see [`crate::Policy::admit`]), and neither does a name no rule
//! allows.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use crate::host::DomainName;

/// What [`Resolve::resolve`] returns.
pub type Resolving<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// A resolver: every address of a name, each of which the proxy checks before it dials one.
pub trait Resolve: Send + Sync {
    fn resolve<'a>(&'a self, name: &'a DomainName) -> Resolving<'a>;
}

/// The system's resolver (`getaddrinfo`, on tokio's blocking pool): `/etc/hosts`, then DNS.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, name: &'a DomainName) -> Resolving<'a> {
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let mut addresses: Vec<IpAddr> = Vec::new();
            for socket in found {
                let address = socket.ip();
                if !addresses.contains(&address) {
                    addresses.push(address);
                }
            }
            Ok(addresses)
        })
    }
}

/// A fixed table of names, for tests and tools: a name not in it does not resolve. It keeps
/// the names it was asked, so a test can check that a refused name was never looked up.
#[derive(Debug, Clone, Default)]
pub struct StaticResolver {
    table: HashMap<String, Vec<IpAddr>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl StaticResolver {
    pub fn new() -> StaticResolver {
        StaticResolver::default()
    }

    /// Answer `name` with `addresses`.
    pub fn with(mut self, name: &str, addresses: &[IpAddr]) -> StaticResolver {
        let key = DomainName::parse(name).map_or_else(|_| name.to_owned(), |name| name.to_string());
        self.table.insert(key, addresses.to_vec());
        self
    }

    /// Every name asked so far, in order (shared by clones).
    pub fn asked(&self) -> Vec<String> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Resolve for StaticResolver {
    fn resolve<'a>(&'a self, name: &'a DomainName) -> Resolving<'a> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(name.to_string());
        let answer = self.table.get(name.as_str()).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{name} is not in the resolver's table"),
            )
        });
        Box::pin(async move { answer })
    }
}
