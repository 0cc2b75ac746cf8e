//! What keeps a command from host sockets and the network where no namespace can (SPEC §10):
//! a seccomp filter, applied only when the launcher could not enter user namespaces.
//!
//! Without a mount namespace nothing hides a socket file, and Landlock (before ABI 9) does not
//! mediate `connect()` to one; without a network namespace Landlock closes TCP but not UDP. So
//! in that mode `socket()` is an allow-list, not a deny-list (issue #45, hole 6: a deny-list of
//! unix, IP and packet sockets left `AF_NETLINK` and `AF_VSOCK` open): with the network closed
//! no family at all; with it open IPv4, IPv6 and the routing netlink protocol that the C
//! library's name lookup asks for its interface list. `socketpair`, which reaches nobody, stays
//! allowed (the kernel has it for unix sockets only). `io_uring_setup` is refused, whose rings
//! could create sockets past the filter. A refused call fails with `EACCES`. The price, stated
//! in the README: a command cannot use a unix socket of its own either in that mode.

use super::{SetupError, could};
use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

/// The socket families a command may create when the network is allowed (any protocol but
/// for netlink, see [`NETLINK_PROTOCOLS`]).
const NETWORK_FAMILIES: [libc::c_int; 3] = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];
/// The netlink protocols allowed with the network: routing (read the interfaces and
/// addresses, as `getaddrinfo` does).
const NETLINK_PROTOCOLS: [libc::c_int; 1] = [libc::NETLINK_ROUTE];

/// Install the filter on the calling thread (and what it starts from now on): `socket()` only
/// for the families of [`NETWORK_FAMILIES`] and only with the network, `socketpair` always, `io_uring_setup` never.
pub(super) fn restrict_sockets(network: bool) -> Result<(), SetupError> {
    fn failed(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SetupError {
        could("restrict sockets")(std::io::Error::other(error))
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(failed)?;
    let argument = |index: u8, operation: SeccompCmpOp, value: libc::c_int| {
        SeccompCondition::new(
            index,
            SeccompCmpArgLen::Dword,
            operation,
            u64::try_from(value).unwrap_or_default(),
        )
    };
    // No rule: every `socket()` is refused. Otherwise a rule matches (and the call is refused)
    // when every condition holds: the family is none of the allowed ones; or it is netlink with
    // a protocol not allowed.
    let mut socket_rules = Vec::new();
    if network {
        let other_family = NETWORK_FAMILIES
            .iter()
            .map(|family| argument(0, SeccompCmpOp::Ne, *family))
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed)?;
        socket_rules.push(SeccompRule::new(other_family).map_err(failed)?);
        let mut other_netlink =
            vec![argument(0, SeccompCmpOp::Eq, libc::AF_NETLINK).map_err(failed)?];
        for protocol in NETLINK_PROTOCOLS {
            other_netlink.push(argument(2, SeccompCmpOp::Ne, protocol).map_err(failed)?);
        }
        socket_rules.push(SeccompRule::new(other_netlink).map_err(failed)?);
    }
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

    /// `socket(family, type, protocol)`'s errno, 0 when it was created.
    fn socket_errno(
        family: nix::sys::socket::AddressFamily,
        kind: nix::sys::socket::SockType,
        protocol: Option<nix::sys::socket::SockProtocol>,
    ) -> i32 {
        match nix::sys::socket::socket(family, kind, nix::sys::socket::SockFlag::empty(), protocol)
        {
            Ok(_) => 0,
            Err(error) => error as i32,
        }
    }

    #[test]
    fn with_the_network_only_internet_and_routing_netlink_sockets_are_allowed() {
        use nix::sys::socket::{AddressFamily as Family, SockProtocol as Protocol, SockType};
        let outcome = std::thread::spawn(|| {
            restrict_sockets(true).unwrap();
            [
                socket_errno(Family::Inet, SockType::Datagram, None),
                socket_errno(Family::Inet6, SockType::Stream, None),
                socket_errno(Family::Netlink, SockType::Raw, Some(Protocol::NetlinkRoute)),
                socket_errno(Family::Netlink, SockType::Raw, Some(Protocol::NetlinkAudit)),
                socket_errno(Family::Unix, SockType::Stream, None),
                socket_errno(Family::Vsock, SockType::Stream, None),
                socket_errno(Family::Packet, SockType::Datagram, None),
            ]
        })
        .join()
        .unwrap();
        let refused = libc::EACCES;
        assert_eq!(outcome, [0, 0, 0, refused, refused, refused, refused]);
    }
}
