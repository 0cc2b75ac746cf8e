//! OpenTelemetry export (SPEC §17): pincer runs against the mock provider with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` at a second mock that records what it is sent, and the tests
//! decode those requests with the protocol's own generated types (`opentelemetry-proto`). Over
//! gRPC the collector is [`GrpcCollector`]: the protocol's generated tonic services, served by
//! hyper's HTTP/2 server.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceResponse;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, metric, number_data_point};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

use crate::common::mock::{MockServer, Reply};
use crate::common::wire::anthropic::tool_results;
use crate::common::{Home, code, stderr};
use crate::suite::exec_sandbox::exec_turn;

const KEY: &str = "sk-ant-OTELKEY-0b1c2d3e4f5a6b7c";
const MODEL: &str = "anthropic/claude-sonnet-4-5";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// A collector that accepts every export.
fn collector() -> MockServer {
    MockServer::start(
        (0..8)
            .map(|_| Reply::raw(200, "application/x-protobuf", b""))
            .collect(),
    )
}

/// What the gRPC collector received: each export with the metadata it came with.
#[derive(Clone, Default)]
struct Received {
    traces: Arc<Mutex<Vec<(tonic::metadata::MetadataMap, ExportTraceServiceRequest)>>>,
    metrics: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
}

#[tonic::async_trait]
impl TraceService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let metadata = request.metadata().clone();
        self.traces
            .lock()
            .unwrap()
            .push((metadata, request.into_inner()));
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Received {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        self.metrics.lock().unwrap().push(request.into_inner());
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// An OTLP/gRPC collector on 127.0.0.1: the generated trace and metrics services over plain
/// HTTP/2 (h2c), on a runtime thread of its own that ends with the test process.
struct GrpcCollector {
    address: std::net::SocketAddr,
    received: Received,
}

impl GrpcCollector {
    fn start() -> GrpcCollector {
        use hyper_util::rt::{TokioExecutor, TokioIo};
        use tonic::codegen::Service as _;

        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        let received = Received::default();
        let traces = TraceServiceServer::new(received.clone());
        let metrics = MetricsServiceServer::new(received.clone());
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                while let Ok((stream, _)) = listener.accept().await {
                    let (traces, metrics) = (traces.clone(), metrics.clone());
                    let service = hyper::service::service_fn(
                        move |request: hyper::Request<hyper::body::Incoming>| {
                            let (mut traces, mut metrics) = (traces.clone(), metrics.clone());
                            async move {
                                if request.uri().path().contains("TraceService") {
                                    traces.call(request).await
                                } else {
                                    metrics.call(request).await
                                }
                            }
                        },
                    );
                    tokio::spawn(
                        hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .serve_connection(TokioIo::new(stream), service),
                    );
                }
            });
        });
        GrpcCollector { address, received }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn spans(&self) -> Vec<Span> {
        self.received
            .traces
            .lock()
            .unwrap()
            .iter()
            .flat_map(|(_, request)| request.resource_spans.clone())
            .flat_map(|resource| resource.scope_spans)
            .flat_map(|scope| scope.spans)
            .collect()
    }
}

/// Every span the collector received, decoded.
fn spans(collector: &MockServer) -> Vec<Span> {
    collector
        .requests()
        .iter()
        .filter(|request| request.path == "/v1/traces")
        .flat_map(|request| {
            let decoded = ExportTraceServiceRequest::decode(request.body.as_slice())
                .expect("an OTLP protobuf export");
            decoded
                .resource_spans
                .into_iter()
                .flat_map(|resource| resource.scope_spans)
                .flat_map(|scope| scope.spans)
        })
        .collect()
}

/// Every metric the collector received, decoded.
fn metrics(collector: &MockServer) -> Vec<Metric> {
    collector
        .requests()
        .iter()
        .filter(|request| request.path == "/v1/metrics")
        .flat_map(|request| {
            let decoded = ExportMetricsServiceRequest::decode(request.body.as_slice())
                .expect("an OTLP protobuf export");
            decoded
                .resource_metrics
                .into_iter()
                .flat_map(|resource| resource.scope_metrics)
                .flat_map(|scope| scope.metrics)
        })
        .collect()
}

fn string_of(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|attribute| attribute.key == key)
        .and_then(|attribute| match attribute.value.clone()?.value? {
            any_value::Value::StringValue(value) => Some(value),
            _ => None,
        })
}

fn named<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| {
            let names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
            panic!("no span {name:?} in {names:?}")
        })
}

fn attribute(span: &Span, key: &str) -> Option<any_value::Value> {
    span.attributes
        .iter()
        .find(|attribute| attribute.key == key)
        .and_then(|attribute| attribute.value.clone()?.value)
}

fn string(span: &Span, key: &str) -> String {
    match attribute(span, key) {
        Some(any_value::Value::StringValue(value)) => value,
        other => panic!("{}: {key} is {other:?}", span.name),
    }
}

fn int(span: &Span, key: &str) -> i64 {
    match attribute(span, key) {
        Some(any_value::Value::IntValue(value)) => value,
        other => panic!("{}: {key} is {other:?}", span.name),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn a_run_exports_one_trace_under_the_incoming_traceparent_and_its_command_gets_the_tool_span() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(exec_turn(&["printenv TRACEPARENT"]));
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
        .args(["run", "-m", MODEL, "list things"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));

    let spans = spans(&collector);
    assert!(
        spans.iter().all(|span| hex(&span.trace_id) == TRACE_ID),
        "every span is in the incoming trace"
    );
    let agent = named(&spans, "invoke_agent");
    assert_eq!(hex(&agent.parent_span_id), PARENT_ID);
    let chats: Vec<&Span> = spans
        .iter()
        .filter(|span| span.name == "chat claude-sonnet-4-5")
        .collect();
    assert_eq!(chats.len(), 2, "one span per model call");
    for chat in &chats {
        assert_eq!(chat.parent_span_id, agent.span_id);
        assert_eq!(string(chat, "gen_ai.operation.name"), "chat");
        assert_eq!(string(chat, "gen_ai.provider.name"), "anthropic");
        assert_eq!(string(chat, "gen_ai.request.model"), "claude-sonnet-4-5");
        assert_eq!(int(chat, "gen_ai.usage.input_tokens"), 10);
        assert_eq!(int(chat, "gen_ai.usage.output_tokens"), 5);
    }
    let tool = named(&spans, "execute_tool exec");
    assert_eq!(tool.parent_span_id, agent.span_id);
    assert_eq!(string(tool, "gen_ai.tool.name"), "exec");
    assert_eq!(string(tool, "gen_ai.tool.call.id"), "c0");
    assert_eq!(string(tool, "pincer.tool.outcome"), "success");

    // The command saw the tool span as its parent.
    let requests = server.requests();
    let results = tool_results(&requests[1].json());
    let printed = results["c0"].0.trim().to_owned();
    assert_eq!(
        printed,
        format!("00-{TRACE_ID}-{}-01", hex(&tool.span_id)),
        "the command's TRACEPARENT names the exported tool span"
    );
}

#[test]
fn nothing_of_the_prompt_the_answer_or_the_key_is_exported_by_default() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(exec_turn(&["true"]));
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .args(["run", "-m", MODEL, "PROMPT-CANARY-91"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(!spans(&collector).is_empty());
    for request in collector.requests() {
        let body = String::from_utf8_lossy(&request.body);
        for secret in [KEY, "PROMPT-CANARY-91", "Done."] {
            assert!(!body.contains(secret), "{secret} was exported");
        }
    }
}

#[test]
fn a_dead_or_silent_collector_costs_at_most_the_flush_timeout_and_keeps_the_exit_code() {
    dead_and_silent_collectors("http/protobuf");
}

/// A run exporting with `transport` (the OTLP protocol) to a port nobody listens on, and to one
/// that accepts and never answers: exit 0 within a few seconds of a 500 ms flush timeout, and a
/// warning.
fn dead_and_silent_collectors(transport: &str) {
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let hold = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().take(4) {
            held.push(stream);
            std::thread::sleep(Duration::from_secs(30));
        }
    });
    for url in [dead_url, silent_url] {
        let home = Home::new();
        let protocol = crate::common::protocols::anthropic();
        let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
        let started = Instant::now();
        let output = home
            .pincer()
            .provider(&protocol, &server)
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", transport)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
            .env("OTEL_EXPORTER_OTLP_TIMEOUT", "500")
            .args(["run", "-m", MODEL, "hello"])
            .output();
        let took = started.elapsed();
        assert_eq!(code(&output), 0, "{transport} {url}: {}", stderr(&output));
        assert!(
            took < Duration::from_secs(5),
            "{transport} {url}: the run took {took:?} with a 500 ms flush timeout"
        );
        assert!(
            stderr(&output).contains("telemetry"),
            "{transport} {url}: a warning says the export failed: {}",
            stderr(&output)
        );
    }
    drop(hold);
}

/// A collector that accepts every connection and never answers: its URL, and a receiver that
/// gets one message per connection it accepted (the flush at exit has begun).
fn silent_collector() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (accepted, connections) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
            if accepted.send(()).is_err() {
                return;
            }
        }
    });
    (url, connections)
}

/// A text turn that exports to `url` with a flush timeout of 20 s.
fn exporting_turn(home: &Home, server: &MockServer, url: &str) -> crate::common::Pincer {
    let protocol = crate::common::protocols::anthropic();
    home.pincer()
        .provider(&protocol, server)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "20000")
}

/// Reliability IV (#46) item 4: with a collector that accepts and never answers,
/// `OTEL_EXPORTER_OTLP_TIMEOUT=20000` kept a `--timeout 2` run alive for 20 s. The flush gets
/// what is left of the run's deadline; the dropped export is a warning, and the exit code the
/// turn's.
#[test]
fn the_flush_at_exit_ends_by_the_runs_timeout_whatever_the_flush_timeout() {
    let home = Home::new();
    let (url, _connections) = silent_collector();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let started = Instant::now();
    let output = exporting_turn(&home, &server, &url)
        .args(["run", "--timeout", "2", "-m", MODEL, "hello"])
        .output();
    let took = started.elapsed();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        took < Duration::from_secs(6),
        "a --timeout 2 run took {took:?} with a 20 s flush timeout"
    );
    assert!(
        stderr(&output).contains("were not exported within")
            && stderr(&output).contains("--timeout"),
        "the warning says the run's --timeout cut the flush: {}",
        stderr(&output)
    );
}

/// Reliability IV (#46) item 4: SIGTERM during the flush at exit waited the flush out and
/// exited 0. It ends the flush, with a warning, and the process exits 143.
#[test]
fn sigterm_during_the_flush_at_exit_ends_the_run_with_143() {
    let home = Home::new();
    let (url, connections) = silent_collector();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let child = exporting_turn(&home, &server, &url)
        .args(["run", "-m", MODEL, "hello"])
        .spawn();
    connections
        .recv_timeout(Duration::from_secs(30))
        .expect("the run began its export");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    // The connection is made from the flush thread before the main thread listens for signals:
    // a moment for that, well inside the 20 s the flush would otherwise wait.
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let output = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    assert_eq!(code(&output), 143, "{}", stderr(&output));
    assert!(
        took < Duration::from_secs(5),
        "ended {took:?} after SIGTERM"
    );
    assert!(
        stderr(&output).contains("not exported: terminated by SIGTERM"),
        "{}",
        stderr(&output)
    );
    assert!(
        crate::common::stdout(&output).contains("hi"),
        "the answer was printed before the flush"
    );
}

#[test]
fn token_usage_duration_tool_calls_and_cost_are_exported_as_metrics() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(exec_turn(&["true"]));
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .args(["run", "-m", MODEL, "list things"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let metrics = metrics(&collector);
    let metric = |name: &str| {
        metrics
            .iter()
            .find(|metric| metric.name == name)
            .and_then(|metric| metric.data.clone())
            .unwrap_or_else(|| panic!("no metric {name}"))
    };
    let Some(metric::Data::Histogram(tokens)) = Some(metric("gen_ai.client.token.usage")) else {
        panic!("gen_ai.client.token.usage is a histogram");
    };
    let sum_of = |kind: &str| -> (f64, u64) {
        tokens
            .data_points
            .iter()
            .filter(|point| {
                string_of(&point.attributes, "gen_ai.token.type").as_deref() == Some(kind)
            })
            .map(|point| (point.sum.unwrap_or_default(), point.count))
            .fold((0.0, 0), |(sum, count), (more, calls)| {
                (sum + more, count + calls)
            })
    };
    assert_eq!(sum_of("input"), (20.0, 2), "two calls of 10 input tokens");
    assert_eq!(sum_of("output"), (10.0, 2), "two calls of 5 output tokens");
    let Some(metric::Data::Histogram(duration)) = Some(metric("gen_ai.client.operation.duration"))
    else {
        panic!("gen_ai.client.operation.duration is a histogram");
    };
    assert_eq!(
        duration
            .data_points
            .iter()
            .map(|point| point.count)
            .sum::<u64>(),
        2
    );
    let Some(metric::Data::Sum(calls)) = Some(metric("pincer.tool.calls")) else {
        panic!("pincer.tool.calls is a sum");
    };
    let point = &calls.data_points[0];
    assert_eq!(point.value, Some(number_data_point::Value::AsInt(1)));
    assert_eq!(
        string_of(&point.attributes, "gen_ai.tool.name").as_deref(),
        Some("exec")
    );
    let Some(metric::Data::Sum(runs)) = Some(metric("pincer.runs")) else {
        panic!("pincer.runs is a sum");
    };
    assert_eq!(
        runs.data_points[0].value,
        Some(number_data_point::Value::AsInt(1))
    );
    assert!(matches!(metric("pincer.cost"), metric::Data::Sum(_)));
}

/// The exported span a `TRACEPARENT` value names.
fn span_named_by<'a>(spans: &'a [Span], traceparent: &str) -> &'a Span {
    let parts: Vec<&str> = traceparent.trim().split('-').collect();
    assert_eq!(parts.len(), 4, "a W3C traceparent: {traceparent:?}");
    spans
        .iter()
        .find(|span| hex(&span.trace_id) == parts[1] && hex(&span.span_id) == parts[2])
        .unwrap_or_else(|| panic!("{traceparent:?} names no exported span"))
}

#[test]
fn a_hook_command_gets_the_traceparent_of_its_own_span_under_the_tool_span() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    std::fs::write(
        home.home.join("config.toml"),
        "[[hooks.PreToolUse]]\nmatcher = \"exec\"\n\
         command = \"cat > /dev/null; printenv TRACEPARENT > hook-traceparent.txt\"\n",
    )
    .unwrap();
    let server = MockServer::start(exec_turn(&["true"]));
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .args(["run", "-m", MODEL, "list things"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let written = std::fs::read_to_string(home.workspace.join("hook-traceparent.txt"))
        .expect("the hook ran and had a TRACEPARENT");
    let hook = span_named_by(&spans, &written);
    assert!(hook.name.starts_with("hook PreToolUse"), "{}", hook.name);
    let tool = named(&spans, "execute_tool exec");
    assert_eq!(hook.parent_span_id, tool.span_id);
}

#[test]
fn a_cli_backend_child_gets_the_traceparent_of_its_chat_span() {
    let bench = crate::suite::backends::Bench::new();
    let collector = collector();
    let output = bench
        .cmd("claude-cli", &["text-turn.jsonl"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
        .args(["run", "-m", "claude-cli/sonnet", "hi"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let env = bench.call(0)["env"].clone();
    let traceparent = env["TRACEPARENT"]
        .as_str()
        .expect("the child got a TRACEPARENT");
    let chat = span_named_by(&spans, traceparent);
    assert!(chat.name.starts_with("chat "), "{}", chat.name);
    let agent = named(&spans, "invoke_agent");
    assert_eq!(chat.parent_span_id, agent.span_id);
    assert_eq!(hex(&agent.parent_span_id), PARENT_ID);
}

#[test]
fn a_retry_is_an_event_of_its_chat_span_and_the_answer_is_exported_only_on_request() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![
        Reply::json(529, &(protocol.error_body)(529)),
        Reply::sse(&(protocol.text)(&["ANSWER-CANARY-17"])),
    ]);
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .fast_retries()
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        .args(["run", "-m", MODEL, "hello"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let chat = named(&spans, "chat claude-sonnet-4-5");
    let retry = chat
        .events
        .iter()
        .find(|event| event.name == "retry")
        .expect("the resend is an event of the model call");
    assert_eq!(
        string_of(&retry.attributes, "pincer.retry.kind").as_deref(),
        Some("resend")
    );
    let agent = named(&spans, "invoke_agent");
    assert!(
        string(agent, "gen_ai.output.messages").contains("ANSWER-CANARY-17"),
        "the answer is there when asked for"
    );
    assert!(
        attribute(agent, "gen_ai.conversation.id").is_some(),
        "the session id is an attribute"
    );
}

#[test]
fn the_telemetry_table_of_config_toml_turns_export_on_and_names_the_service() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let collector = collector();
    std::fs::write(
        home.home.join("config.toml"),
        format!(
            "[telemetry]\nendpoint = \"{}\"\nservice_name = \"nightly-fixer\"\n",
            collector.url()
        ),
    )
    .unwrap();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .args(["run", "-m", MODEL, "hello"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    named(&spans(&collector), "invoke_agent");
    let request = collector
        .requests()
        .into_iter()
        .find(|request| request.path == "/v1/traces")
        .expect("traces went to the configured endpoint");
    let decoded = ExportTraceServiceRequest::decode(request.body.as_slice()).unwrap();
    let resource = decoded.resource_spans[0].resource.clone().unwrap();
    assert_eq!(
        string_of(&resource.attributes, "service.name").as_deref(),
        Some("nightly-fixer")
    );
    assert!(
        collector
            .requests()
            .iter()
            .any(|request| request.path == "/v1/metrics"),
        "metrics go to the same collector: {:?}",
        collector
            .requests()
            .iter()
            .map(|request| request.path.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn an_mcp_stdio_server_gets_the_traceparent_of_the_run_span() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let config = crate::suite::mcp::stdio_server("t", "stdio", None, serde_json::json!({}));
    let server = MockServer::start(vec![
        Reply::sse(&(protocol.tool_call)(
            "c1",
            "mcp__t__env",
            &serde_json::json!({"name": "TRACEPARENT"}),
        )),
        Reply::sse(&(protocol.text)(&["done"])),
    ]);
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
        .args([
            "run",
            "-m",
            MODEL,
            "--mcp-config",
            &config.to_string(),
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let requests = server.requests();
    let results = tool_results(&requests[1].json());
    let started_by = span_named_by(&spans, &results["c1"].0);
    assert_eq!(started_by.name, "invoke_agent");
}

#[test]
fn over_grpc_a_run_exports_its_spans_with_their_parents_and_the_headers_as_metadata() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(exec_turn(&["true"]));
    let collector = GrpcCollector::start();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("OTEL_EXPORTER_OTLP_HEADERS", "x-collector-tenant=nightly")
        .env("TRACEPARENT", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
        .args(["run", "-m", MODEL, "list things"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("telemetry"),
        "no warning: {}",
        stderr(&output)
    );

    let spans = collector.spans();
    assert!(spans.iter().all(|span| hex(&span.trace_id) == TRACE_ID));
    let agent = named(&spans, "invoke_agent");
    assert_eq!(hex(&agent.parent_span_id), PARENT_ID);
    let chats: Vec<&Span> = spans
        .iter()
        .filter(|span| span.name == "chat claude-sonnet-4-5")
        .collect();
    assert_eq!(chats.len(), 2, "one span per model call");
    for chat in &chats {
        assert_eq!(chat.parent_span_id, agent.span_id);
        assert_eq!(int(chat, "gen_ai.usage.input_tokens"), 10);
    }
    let tool = named(&spans, "execute_tool exec");
    assert_eq!(tool.parent_span_id, agent.span_id);
    assert_eq!(string(tool, "gen_ai.tool.name"), "exec");

    let traces = collector.received.traces.lock().unwrap();
    let (metadata, _) = &traces[0];
    assert_eq!(
        metadata
            .get("x-collector-tenant")
            .and_then(|value| value.to_str().ok()),
        Some("nightly"),
        "OTEL_EXPORTER_OTLP_HEADERS arrive as gRPC metadata"
    );
    drop(traces);
    let metrics = collector.received.metrics.lock().unwrap();
    assert!(
        metrics
            .iter()
            .flat_map(|request| &request.resource_metrics)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .any(|metric| metric.name == "gen_ai.client.token.usage"),
        "the metrics go over gRPC too"
    );
}

#[test]
fn over_grpc_the_traces_endpoint_variable_is_the_address_as_given() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let collector = GrpcCollector::start();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc")
        .env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", collector.url())
        .args(["run", "-m", MODEL, "hello"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    named(&collector.spans(), "invoke_agent");
    assert!(
        collector.received.metrics.lock().unwrap().is_empty(),
        "a traces-only endpoint sends no metrics"
    );
}

#[test]
fn a_dead_or_silent_grpc_collector_costs_at_most_the_flush_timeout_and_keeps_the_exit_code() {
    dead_and_silent_collectors("grpc");
}

/// The content attributes of the GenAI conventions.
const CONTENT_ATTRIBUTES: [&str; 3] = [
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
];

#[test]
fn no_message_content_attribute_is_exported_without_the_capture_variable() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .args(["run", "-m", MODEL, "PROMPT-CANARY-33"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    named(&spans, "invoke_agent");
    for span in &spans {
        for key in CONTENT_ATTRIBUTES {
            assert!(attribute(span, key).is_none(), "{}: {key}", span.name);
        }
    }
}

#[test]
fn with_the_capture_variable_the_prompt_and_system_instructions_are_exported_but_no_key() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        .args(["run", "-m", MODEL, "PROMPT-CANARY-33"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let agent = named(&spans, "invoke_agent");
    let input: serde_json::Value =
        serde_json::from_str(&string(agent, "gen_ai.input.messages")).expect("JSON messages");
    assert_eq!(input[0]["role"], "user");
    assert_eq!(input[0]["parts"][0]["type"], "text");
    assert!(
        input[0]["parts"][0]["content"]
            .as_str()
            .is_some_and(|text| text.contains("PROMPT-CANARY-33")),
        "{input}"
    );
    let system: serde_json::Value =
        serde_json::from_str(&string(agent, "gen_ai.system_instructions")).expect("JSON parts");
    assert_eq!(system[0]["type"], "text");
    assert!(
        system[0]["content"]
            .as_str()
            .is_some_and(|text| !text.is_empty()),
        "{system}"
    );
    let output: serde_json::Value =
        serde_json::from_str(&string(agent, "gen_ai.output.messages")).expect("JSON messages");
    assert_eq!(output[0]["role"], "assistant");
    for request in collector.requests() {
        assert!(
            !String::from_utf8_lossy(&request.body).contains(KEY),
            "the key was exported"
        );
    }
}

#[test]
fn each_mcp_server_start_is_a_span_under_the_run_with_its_outcome_and_no_environment() {
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let mut config = crate::suite::mcp::stdio_server("t", "stdio", None, serde_json::json!({}));
    config["mcpServers"]["hang"] = crate::suite::mcp::stdio_server(
        "hang",
        "hang",
        None,
        serde_json::json!({"startup_timeout_sec": 0.5}),
    )["mcpServers"]["hang"]
        .clone();
    config["mcpServers"]["broken"] = serde_json::json!({
        "command": "/nonexistent/mcp-server",
        "env": {"MCP_TOKEN": "ENV-CANARY-55"},
    });
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["done"]))]);
    let collector = collector();
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url())
        .args([
            "run",
            "-m",
            MODEL,
            "--mcp-config",
            &config.to_string(),
            "go",
        ])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let spans = spans(&collector);
    let agent = named(&spans, "invoke_agent");
    let started = named(&spans, "mcp_start t");
    assert_eq!(started.parent_span_id, agent.span_id);
    assert_eq!(string(started, "pincer.mcp.server"), "t");
    assert_eq!(string(started, "pincer.mcp.transport"), "stdio");
    assert_eq!(string(started, "pincer.mcp.outcome"), "ok");
    assert!(attribute(started, "error.type").is_none());
    assert!(started.end_time_unix_nano > started.start_time_unix_nano);
    assert!(started.start_time_unix_nano >= agent.start_time_unix_nano);

    let hang = named(&spans, "mcp_start hang");
    assert_eq!(hang.parent_span_id, agent.span_id);
    assert_eq!(string(hang, "pincer.mcp.outcome"), "error");
    assert_eq!(string(hang, "error.type"), "timeout");
    let took = Duration::from_nanos(hang.end_time_unix_nano - hang.start_time_unix_nano);
    assert!(took >= Duration::from_millis(500), "{took:?}");

    let broken = named(&spans, "mcp_start broken");
    assert_eq!(string(broken, "error.type"), "connect");
    for request in collector.requests() {
        let body = String::from_utf8_lossy(&request.body);
        for secret in ["ENV-CANARY-55", "MCP_TOKEN", "/nonexistent"] {
            assert!(!body.contains(secret), "{secret} was exported");
        }
    }
}

#[test]
fn an_https_grpc_endpoint_is_dialled_with_tls_offering_h2() {
    // A listener that keeps the first bytes the exporter sends: a TLS ClientHello, which names
    // the ALPN protocols offered, when the https channel uses pincer's rustls configuration.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "https://localhost:{}",
        listener.local_addr().unwrap().port()
    );
    let hello = std::thread::spawn(move || {
        use std::io::Read as _;
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut bytes = vec![0; 4096];
        let read = stream.read(&mut bytes).unwrap_or(0);
        bytes.truncate(read);
        bytes
    });
    let home = Home::new();
    let protocol = crate::common::protocols::anthropic();
    let server = MockServer::start(vec![Reply::sse(&(protocol.text)(&["hi"]))]);
    let output = home
        .pincer()
        .provider(&protocol, &server)
        .key(&protocol, KEY)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .env("OTEL_EXPORTER_OTLP_TIMEOUT", "500")
        .args(["run", "-m", MODEL, "hello"])
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("telemetry"),
        "the unanswered handshake is a warning: {}",
        stderr(&output)
    );
    let hello = hello.join().unwrap();
    assert_eq!(
        hello.first(),
        Some(&0x16),
        "a TLS handshake record: {hello:?}"
    );
    assert!(
        hello.windows(3).any(|window| window == b"\x02h2"),
        "the ClientHello offers h2"
    );
}
