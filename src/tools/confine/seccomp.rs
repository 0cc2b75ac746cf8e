//! What keeps a command from host sockets and the network where no namespace can (SPEC §10):
//! a seccomp filter, applied only when the launcher could not enter user namespaces.
//!
//! Without a mount namespace nothing hides a socket file, and Landlock (up to ABI 7) does not
//! mediate `connect()` to one; without a network namespace Landlock closes TCP but not UDP. So
//! in that mode the filter refuses to create a unix socket at all (`socketpair`, which reaches
//! nobody, stays allowed) and, with the network closed, an IPv4, IPv6 or packet socket; and it
//! refuses `io_uring_setup`, whose rings could create sockets past the filter. A refused call
//! fails with `EACCES`. The price, stated in the README: a command cannot use a unix socket of
//! its own either in that mode.

use super::{SetupError, could};
use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

/// Install the filter on the calling thread (and what it starts from now on): unix sockets
/// refused, and internet and packet sockets too when `network` is false.
pub(super) fn restrict_sockets(network: bool) -> Result<(), SetupError> {
    fn failed(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SetupError {
        could("restrict sockets")(std::io::Error::other(error))
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(failed)?;
    let mut families = vec![libc::AF_UNIX];
    if !network {
        families.extend([libc::AF_INET, libc::AF_INET6, libc::AF_PACKET]);
    }
    let socket_rules = families
        .into_iter()
        .map(|family| {
            let family = u64::try_from(family).unwrap_or_default();
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family)
                .and_then(|condition| SeccompRule::new(vec![condition]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(failed)?;
    let rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::from([
        (libc::SYS_socket, socket_rules),
        (libc::SYS_io_uring_setup, Vec::new()),
    ]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::EACCES).unwrap_or(13)),
        arch,
    )
    .map_err(failed)?;
    let program: seccompiler::BpfProgram = filter.try_into().map_err(failed)?;
    seccompiler::apply_filter(&program).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restricted_thread_makes_no_unix_or_internet_socket_but_a_socket_pair() {
        let outcome = std::thread::spawn(|| {
            restrict_sockets(false).unwrap();
            let unix = std::os::unix::net::UnixStream::connect("/nonexistent/socket");
            let internet = std::net::TcpListener::bind("127.0.0.1:0");
            let pair = std::os::unix::net::UnixStream::pair();
            (
                unix.err().map(|error| error.raw_os_error()),
                internet.is_err(),
                pair.is_ok(),
            )
        })
        .join()
        .unwrap();
        assert_eq!(outcome, (Some(Some(libc::EACCES)), true, true));
        // The rest of the process is not restricted.
        assert!(std::net::TcpListener::bind("127.0.0.1:0").is_ok());
    }
}
