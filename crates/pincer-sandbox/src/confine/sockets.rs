//! What a confined command cannot reach besides files (SPEC §10 "Nothing leaves the
//! sandbox"): the host's unix sockets and, with the network closed, everything but its own
//! loopback.
//!
//! Landlock (up to ABI 5) does not mediate `connect()` to a socket file, and a read-only mount
//! does not stop it either, so a socket outside the roots is reachable unless it is out of
//! sight. The launcher reads the system's socket table (`/proc/net/unix`, every bound pathname
//! socket of the host's network namespace) before it leaves that namespace, and covers each
//! socket outside the roots; the caller adds the directories that hold the user's session
//! services ([`session_socket_paths`]), which cover sockets made later too. Abstract sockets
//! belong to a network namespace: a closed network takes them away, Landlock ABI 6 scoping
//! otherwise.

use super::{SetupError, could};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};

use nix::sys::socket::{
    AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, recv, sendto, socket,
};
use std::os::fd::AsRawFd as _;

/// Variables that name the user's terminal multiplexer, agents and display: a command must not
/// find its way to them, so they are not passed to confined children.
pub const SESSION_VARIABLES: [&str; 24] = [
    "TMUX",
    "TMUX_PANE",
    "STY",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "SSH_ASKPASS",
    "GIT_ASKPASS",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "SWAYSOCK",
    "I3SOCK",
    "KITTY_LISTEN_ON",
    "WEZTERM_UNIX_SOCKET",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "VSCODE_IPC_HOOK_CLI",
    "VSCODE_GIT_IPC_HANDLE",
];

/// The pathname sockets listed in `table` (the text of `/proc/net/unix`): the last field of a
/// line, when it is one (abstract sockets start with `@`, unbound ones have none). An absolute
/// path is where the socket is; a relative one is only a name, bound from the directory its
/// process was in (issue #45, hole 5), which [`host_sockets`] looks for.
pub(super) fn socket_table_paths(table: &str) -> BTreeSet<PathBuf> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            // Num RefCount Protocol Flags Type St Inode Path: the path is what follows the
            // seventh field, spaces and all.
            let mut rest = line.trim_start();
            for _ in 0..7 {
                let end = rest.find(char::is_whitespace)?;
                rest = rest[end..].trim_start();
            }
            (!rest.is_empty() && !rest.starts_with('@')).then(|| PathBuf::from(rest))
        })
        .collect()
}

/// The sockets of the host to cover for a command: every pathname socket of the system's table
/// that exists here as a socket and is not beneath one of `reachable` (the roots). A socket
/// bound by a relative name is looked for in the working directory of every process this user
/// may see (`/proc/PID/cwd`, where a service usually stays): what is a socket of that name there
/// is covered. One bound by a process that has changed directory since, or that is another
/// user's, is not found (a residual risk the README states).
pub(super) fn host_sockets(reachable: &[PathBuf]) -> Vec<PathBuf> {
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else {
        return Vec::new();
    };
    let (absolute, relative): (Vec<PathBuf>, Vec<PathBuf>) = socket_table_paths(&table)
        .into_iter()
        .partition(|path| path.is_absolute());
    let mut candidates = absolute;
    if !relative.is_empty() {
        for directory in process_directories() {
            candidates.extend(relative.iter().map(|name| directory.join(name)));
        }
    }
    candidates.sort();
    candidates.dedup();
    candidates
        .into_iter()
        .filter(|path| !reachable.iter().any(|root| path.starts_with(root)))
        .filter(|path| {
            std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_socket())
        })
        .collect()
}

/// The working directories of the processes whose `/proc/PID/cwd` this process may read.
fn process_directories() -> BTreeSet<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .as_encoded_bytes()
                .iter()
                .all(u8::is_ascii_digit)
        })
        .filter_map(|entry| std::fs::read_link(entry.path().join("cwd")).ok())
        .filter(|directory| directory.is_absolute())
        .collect()
}

/// Where the user's session services keep their sockets, from `environment` (pincer's own) and
/// the uid: the runtime directory, tmux's and screen's socket directories, X11's, the SSH
/// agent's and the sockets that D-Bus, Docker and Wayland variables name. The caller hides those
/// that exist and lie outside the roots; a directory covers the sockets made in it later too.
pub fn session_socket_paths(
    environment: &dyn Fn(&str) -> Option<OsString>,
    uid: u32,
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = vec![
        PathBuf::from(format!("/run/user/{uid}")),
        PathBuf::from(format!("/tmp/tmux-{uid}")),
        "/tmp/.X11-unix".into(),
        "/tmp/.ICE-unix".into(),
        "/tmp/screens".into(),
        "/run/screen".into(),
        "/var/run/screen".into(),
    ];
    let variable = |name: &str| environment(name).filter(|value| !value.is_empty());
    if let Some(runtime) = variable("XDG_RUNTIME_DIR") {
        paths.push(runtime.into());
    }
    if let Some(directory) = variable("TMUX_TMPDIR") {
        paths.push(PathBuf::from(directory).join(format!("tmux-{uid}")));
    }
    // TMUX is "socket,pid,session".
    if let Some(tmux) = variable("TMUX")
        && let Some(socket) = tmux.to_string_lossy().split(',').next()
        && let Some(directory) = Path::new(socket).parent()
    {
        paths.push(directory.to_path_buf());
    }
    if let Some(agent) = variable("SSH_AUTH_SOCK") {
        let agent = PathBuf::from(agent);
        // ssh-agent's own directory (`/tmp/ssh-XXXX/agent.PID`) goes whole.
        match agent.parent() {
            Some(directory)
                if directory
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("ssh-")) =>
            {
                paths.push(directory.to_path_buf());
            }
            _ => paths.push(agent),
        }
    }
    for name in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS"] {
        if let Some(address) = variable(name) {
            // "unix:path=/run/user/1000/bus,guid=…"; several addresses separated by ';'.
            for part in address.to_string_lossy().split(';') {
                for field in part.split(',') {
                    if let Some(path) = field
                        .strip_prefix("unix:path=")
                        .or_else(|| field.strip_prefix("path="))
                    {
                        paths.push(PathBuf::from(path));
                    }
                }
            }
        }
    }
    for name in ["DOCKER_HOST", "CONTAINER_HOST"] {
        if let Some(host) = variable(name)
            && let Some(path) = host.to_string_lossy().strip_prefix("unix://")
        {
            paths.push(PathBuf::from(path));
        }
    }
    if let Some(display) = variable("WAYLAND_DISPLAY") {
        let display = PathBuf::from(display);
        if display.is_absolute() {
            paths.push(display);
        }
    }
    paths.retain(|path| path.is_absolute());
    paths.sort();
    paths.dedup();
    paths
}

/// Bring the loopback interface of a new network namespace up (it starts down), so the command
/// can still talk to itself over 127.0.0.1 and ::1. One `RTM_NEWLINK` request over rtnetlink:
/// interface 1 (loopback is always the first), `IFF_UP` set.
pub(super) fn loopback_up() -> Result<(), SetupError> {
    const RTM_NEWLINK: u16 = 16;
    const NLM_F_REQUEST: u16 = 0x1;
    const NLM_F_ACK: u16 = 0x4;
    const NLMSG_ERROR: u16 = 2;
    const IFF_UP: u32 = 0x1;
    let failed = could("bring the loopback interface up");
    let descriptor = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkRoute,
    )
    .map_err(&failed)?;
    // struct nlmsghdr (16 bytes) then struct ifinfomsg (16 bytes), native byte order.
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32_u32.to_ne_bytes());
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    message.extend_from_slice(&1_u32.to_ne_bytes());
    message.extend_from_slice(&0_u32.to_ne_bytes());
    message.extend_from_slice(&[0, 0]);
    message.extend_from_slice(&0_u16.to_ne_bytes());
    message.extend_from_slice(&1_i32.to_ne_bytes());
    message.extend_from_slice(&IFF_UP.to_ne_bytes());
    message.extend_from_slice(&IFF_UP.to_ne_bytes());
    sendto(
        descriptor.as_raw_fd(),
        &message,
        &NetlinkAddr::new(0, 0),
        MsgFlags::empty(),
    )
    .map_err(&failed)?;
    let mut answer = [0_u8; 256];
    let length = recv(descriptor.as_raw_fd(), &mut answer, MsgFlags::empty()).map_err(&failed)?;
    // The acknowledgement is an NLMSG_ERROR message whose error field is 0.
    let kind = answer
        .get(4..6)
        .map(|bytes| u16::from_ne_bytes([bytes[0], bytes[1]]));
    let error = answer
        .get(16..20)
        .map(|bytes| i32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    match (length >= 20, kind, error) {
        (true, Some(NLMSG_ERROR), Some(0)) => Ok(()),
        (true, Some(NLMSG_ERROR), Some(code)) => Err(failed(nix::errno::Errno::from_raw(-code))),
        _ => Err(failed(nix::errno::Errno::EPROTO)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_table_gives_pathname_sockets_absolute_and_relative() {
        let table = "Num       RefCount Protocol Flags    Type St Inode Path\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 23456 /run/docker.sock\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 23457 @/tmp/.X11-unix/X0\n\
            0000000000000000: 00000003 00000000 00000000 0001 03 23458\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 23459 /tmp/a dir/s.sock\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 23460 /run/docker.sock\n\
            0000000000000000: 00000002 00000000 00010000 0001 01 23461 rel.sock\n";
        let paths: Vec<PathBuf> = socket_table_paths(table).into_iter().collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/run/docker.sock"),
                "/tmp/a dir/s.sock".into(),
                "rel.sock".into()
            ]
        );
    }

    #[test]
    fn session_services_are_found_from_the_environment() {
        let environment = |name: &str| -> Option<OsString> {
            match name {
                "TMUX" => Some("/tmp/tmux-1000/default,1234,0".into()),
                "SSH_AUTH_SOCK" => Some("/tmp/ssh-XYZ/agent.77".into()),
                "DBUS_SESSION_BUS_ADDRESS" => {
                    Some("unix:path=/run/user/1000/bus,guid=abc;unix:abstract=/x".into())
                }
                "DOCKER_HOST" => Some("unix:///home/u/.docker/run/docker.sock".into()),
                "WAYLAND_DISPLAY" => Some("wayland-0".into()),
                _ => None,
            }
        };
        let paths = session_socket_paths(&environment, 1000);
        for expected in [
            "/run/user/1000",
            "/tmp/tmux-1000",
            "/tmp/ssh-XYZ",
            "/run/user/1000/bus",
            "/home/u/.docker/run/docker.sock",
            "/tmp/.X11-unix",
        ] {
            assert!(
                paths.contains(&PathBuf::from(expected)),
                "{expected}: {paths:?}"
            );
        }
        // A relative Wayland display lives in the runtime directory, hidden already.
        assert!(!paths.iter().any(|path| path.ends_with("wayland-0")));
        // An agent socket outside an ssh- directory is hidden alone.
        let single = |name: &str| -> Option<OsString> {
            (name == "SSH_AUTH_SOCK").then(|| "/home/u/.ssh/agent.sock".into())
        };
        assert!(
            session_socket_paths(&single, 0).contains(&PathBuf::from("/home/u/.ssh/agent.sock"))
        );
    }
}
