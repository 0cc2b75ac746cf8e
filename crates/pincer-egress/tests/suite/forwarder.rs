//! The forwarder: from a namespace's loopback to the proxy's unix socket, as it runs in the
//! sandbox's launcher — and inside a real network namespace (`unshare -rn`), where it is the
//! only way out.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pincer_egress::forwarder::{self, Route};
use pincer_egress::proxy::{Listener, Proxy, Running};
use pincer_egress::{DenialReason, Policy};

use crate::support::{Origin, curl, echo, policy, stdout};

/// A fresh directory for a proxy socket.
fn socket_directory(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("egress-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn serve_on_socket(policy: Policy, path: &Path) -> Running {
    let listener = tokio::net::UnixListener::bind(path).unwrap();
    Proxy::builder(policy)
        .build()
        .spawn([Listener::Unix(listener)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forwarder_pipes_each_connection_to_the_proxy_socket() {
    let directory = socket_directory("pipe");
    let socket = directory.join("proxy.sock");
    let origin = Origin::start("npm", None).await;
    let running = serve_on_socket(
        policy(
            &["@npm"],
            &[],
            &[("registry.npmjs.org", origin.address.to_string())],
        ),
        &socket,
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    forwarder::spawn(listener, socket.clone(), Route::Proxy).unwrap();
    let proxy_url = format!("http://127.0.0.1:{port}");
    for path in ["/a", "/b"] {
        let output = curl(
            &[&format!("http://registry.npmjs.org{path}")],
            &[("http_proxy", &proxy_url)],
        )
        .await;
        assert_eq!(
            stdout(&output),
            format!("npm GET {path}\n\n200"),
            "{output:?}"
        );
    }
    let refused = curl(&["http://evil.tld/"], &[("http_proxy", &proxy_url)]).await;
    assert!(stdout(&refused).ends_with("\n403"), "{refused:?}");
    assert_eq!(running.stop().await.len(), 1);
    let _ = std::fs::remove_dir_all(&directory);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connect_route_reaches_its_fixed_destination_and_the_server_speaks_first() {
    let directory = socket_directory("route");
    let socket = directory.join("proxy.sock");
    let database = echo("127.0.0.1:0", "postgres").await;
    let other = echo("127.0.0.1:0", "other").await;
    let running = serve_on_socket(
        policy(&[&format!("localhost:{}", database.port())], &[], &[]),
        &socket,
    );
    let allowed = TcpListener::bind("127.0.0.1:0").unwrap();
    let allowed_port = allowed.local_addr().unwrap().port();
    let route = Route::Connect(format!("localhost:{}", database.port()));
    forwarder::spawn(allowed, socket.clone(), route).unwrap();
    let refused = TcpListener::bind("127.0.0.1:0").unwrap();
    let refused_port = refused.local_addr().unwrap().port();
    let route = Route::Connect(format!("localhost:{}", other.port()));
    forwarder::spawn(refused, socket.clone(), route).unwrap();
    let talk = tokio::task::spawn_blocking(move || {
        // A client that knows nothing of proxies: the server's greeting, then an echo.
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", allowed_port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut greeting = [0_u8; 15];
        stream.read_exact(&mut greeting).unwrap();
        stream.write_all(b"SELECT 1\n").unwrap();
        let mut echoed = [0_u8; 9];
        stream.read_exact(&mut echoed).unwrap();
        // The refused route closes the client's connection without a byte.
        let mut closed = std::net::TcpStream::connect(("127.0.0.1", refused_port)).unwrap();
        closed
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut rest = Vec::new();
        let read = closed.read_to_end(&mut rest);
        (greeting, echoed, read.ok(), rest)
    })
    .await
    .unwrap();
    assert_eq!(&talk.0, b"hello postgres\n");
    assert_eq!(&talk.1, b"SELECT 1\n");
    assert_eq!((talk.2, talk.3.len()), (Some(0), 0));
    let denials = running.stop().await;
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].port, other.port());
    assert_eq!(denials[0].reason, DenialReason::NotAllowed);
    let _ = std::fs::remove_dir_all(&directory);
}

/// What the namespace test runs inside `unshare -rn` (this test binary, started again): the
/// forwarder on the namespace's loopback — the proxy's port, and a fixed route for the
/// database's port — then the test's script with the proxy variables set, then a database
/// client that knows nothing of proxies.
#[test]
#[ignore = "run inside a network namespace by the_forwarder_in_a_network_namespace_is_the_only_way_out"]
fn namespace_helper() {
    let (Some(socket), Some(script), Some(route)) = (
        std::env::var_os("EGRESS_TEST_SOCKET"),
        std::env::var_os("EGRESS_TEST_SCRIPT"),
        std::env::var("EGRESS_TEST_ROUTE").ok(),
    ) else {
        return;
    };
    let socket = PathBuf::from(socket);
    let listeners = forwarder::bind_loopback(0).unwrap();
    let port = listeners[0].local_addr().unwrap().port();
    for listener in listeners {
        forwarder::spawn(listener, socket.clone(), Route::Proxy).unwrap();
    }
    // The database's own port, inside: nothing else listens on this loopback.
    let (database, destination) = route.split_once('=').unwrap();
    let database: u16 = database.parse().unwrap();
    for listener in forwarder::bind_loopback(database).unwrap() {
        let route = Route::Connect(destination.to_owned());
        forwarder::spawn(listener, socket.clone(), route).unwrap();
    }
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .envs(forwarder::proxy_variables(port))
        .status()
        .unwrap();
    println!("script={}", status.code().unwrap_or(-1));
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", database)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut greeting = [0_u8; 9];
    stream.read_exact(&mut greeting).unwrap();
    println!("database={}", String::from_utf8_lossy(&greeting).trim());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forwarder_in_a_network_namespace_is_the_only_way_out() {
    let directory = socket_directory("namespace");
    let socket = directory.join("proxy.sock");
    let origin = Origin::start("npm-stand-in", None).await;
    let database = echo("127.0.0.1:0", "db").await;
    let rules = policy(
        &["@npm", &format!("localhost:{}", database.port())],
        &[],
        &[("registry.npmjs.org", origin.address.to_string())],
    );
    let routes = rules.loopback_routes();
    assert_eq!(
        routes,
        [(database.port(), format!("localhost:{}", database.port()))]
    );
    let running = serve_on_socket(rules, &socket);
    // Through the proxy variables, by name: allowed, then refused; then a client that ignores
    // them and dials the stand-in's address directly; then SOCKS5 through ALL_PROXY.
    let script = format!(
        "curl -sS -m 5 -w ' %{{http_code}}\\n' http://registry.npmjs.org/left-pad; \
         echo proxied=$?; \
         curl -sS -m 5 -o /dev/null -w '%{{http_code}}\\n' http://evil.tld/; \
         curl --noproxy '*' -sS -m 5 http://127.0.0.1:{origin}/; \
         echo direct=$?; \
         env -u http_proxy -u HTTP_PROXY curl -sS -m 5 -w ' %{{http_code}}\\n' \
             http://registry.npmjs.org/socks; \
         echo socks=$?",
        origin = origin.port()
    );
    let executable = std::env::current_exe().unwrap();
    let output = tokio::process::Command::new("unshare")
        .args(["-rn", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""])
        .arg(&executable)
        .args([
            "--exact",
            "suite::forwarder::namespace_helper",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("EGRESS_TEST_SOCKET", &socket)
        .env("EGRESS_TEST_SCRIPT", &script)
        .env(
            "EGRESS_TEST_ROUTE",
            format!("{}={}", routes[0].0, routes[0].1),
        )
        .output()
        .await
        .expect("unshare runs (util-linux)");
    let text = stdout(&output);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{text}\n{errors}");
    for expected in [
        "npm-stand-in GET /left-pad\n 200\nproxied=0\n",
        "403\n",
        "direct=7\n",
        "npm-stand-in GET /socks\n 200\nsocks=0\n",
        "script=0\n",
        "database=hello db\n",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} not in:\n{text}\n{errors}"
        );
    }
    assert!(
        errors.contains("Failed to connect to 127.0.0.1"),
        "{errors}"
    );
    let denials = running.stop().await;
    assert_eq!(denials.len(), 1, "{denials:?}");
    assert_eq!(denials[0].host, "evil.tld");
    assert_eq!(origin.heads().len(), 2);
    let _ = std::fs::remove_dir_all(&directory);
}
