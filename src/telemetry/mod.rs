//! OpenTelemetry traces (SPEC §17), per the GenAI semantic conventions.
//!
//! [`watch`] starts it the first time a turn's sink is built, from the standard variables and,
//! for what they leave unset, `[telemetry]`. With no OTLP endpoint, or `OTEL_SDK_DISABLED=true`
//! (`enabled = false`), nothing is built: no exporter, no thread, and [`watch`] and
//! [`child_environment`] give back what they were given and nothing; a run pays one lookup of a
//! few variables. Otherwise a tracer provider exports from the SDK's own thread over OTLP/HTTP
//! (protobuf by default, JSON on request) or OTLP/gRPC (`grpc`: the exporter's tonic client, on a
//! one-thread runtime of its own, connecting with pincer's rustls configuration for `https`).
//!
//! The spans come from the engine's events ([`watch`] wraps the output sink): `invoke_agent` for
//! the run (the child of an incoming `TRACEPARENT`), `chat {model}` per model call,
//! `execute_tool {name}` per tool call, `compact`, `hook {name}` and `mcp_start {server}`. The innermost open span is
//! the one a child process pincer starts then belongs to: [`child_environment`] gives its
//! `TRACEPARENT` (and `TRACESTATE`), which `exec`, hooks, MCP stdio servers and CLI backends put
//! in their environment. With telemetry off an incoming `TRACEPARENT` is inherited unchanged,
//! like any other variable, so a trace still runs through pincer into its children.
//!
//! [`finish`] ends the run: it flushes on a thread of its own and waits at most the flush
//! timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`, else 2 s), cut to what is left of `--timeout`, so a
//! collector that is down or slow costs that long and a warning, never a hang, a run past its
//! `--timeout` or another exit code; SIGTERM or SIGINT during the flush drops the export and ends
//! the process with 143 or 130.
//!
//! Never exported: keys and headers, the prompt, system prompt and answer unless
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, tool arguments and results, an MCP
//! server's error message, environment or headers.

mod grpc;
mod metrics;
mod sink;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crate::cancel::CancelReason;
use crate::config::file::TelemetryConfig;
use opentelemetry::Context;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider, SpanData, SpanExporter};

pub(crate) use sink::watch;

/// How long the export at exit may take when `OTEL_EXPORTER_OTLP_TIMEOUT` does not say.
const DEFAULT_FLUSH_TIMEOUT: Duration = Duration::from_secs(2);

/// What the run exports with, while it runs.
struct Active {
    tracer: SdkTracer,
    /// The incoming `TRACEPARENT`/`TRACESTATE` (an empty context without them).
    incoming: Context,
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
    capture_content: bool,
    /// The instruments, when metrics are exported.
    metrics: Option<metrics::Instruments>,
}

// Statics with a reason (issue #48): the OpenTelemetry providers are the process's, started
// once by `main` and flushed once at its exit, whatever command ran; the current span is the
// exporter's own bookkeeping, and the layers below see it only through the `ChildTrace` value
// the root hands them (`child_trace`).

/// What the first [`start`] decided: `None` = telemetry off.
static ACTIVE: OnceLock<Option<Started>> = OnceLock::new();

/// The providers to flush at exit, taken by [`finish`].
static PROVIDERS: Mutex<Option<Telemetry>> = Mutex::new(None);

struct Started {
    state: Active,
    providers: Telemetry,
}

/// The innermost open span: the parent of the next child process.
static CURRENT: Mutex<Option<Context>> = Mutex::new(None);

/// The providers to flush at exit (clones share the SDK's state).
#[derive(Clone)]
struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: Option<SdkMeterProvider>,
    flush_timeout: Duration,
    /// The last export failure (the SDK only logs them).
    failure: Failure,
}

type Failure = Arc<Mutex<Option<String>>>;

/// The OTLP exporter, keeping its last failure for the warning at exit.
#[derive(Debug)]
struct Noting<E> {
    inner: E,
    failure: Failure,
}

impl<E: SpanExporter> SpanExporter for Noting<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result {
            *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.to_string());
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

/// How spans and metrics travel to the collector (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// `http/protobuf`, the default.
    HttpProtobuf,
    /// `http/json`.
    HttpJson,
    /// `grpc`: the endpoint is the collector's gRPC address, with no `/v1/...` path.
    Grpc,
}

/// How the variables configure telemetry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setup {
    Off,
    /// Not started, with the reason for a warning.
    Unsupported(String),
    On {
        transport: Transport,
        flush_timeout: Duration,
        capture_content: bool,
    },
}

/// Decide from the variables (`lookup` is `std::env::var` outside tests).
fn setup(lookup: &dyn Fn(&str) -> Option<String>) -> Setup {
    let set = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
    let is_true = |name: &str| set(name).is_some_and(|value| value.trim() == "true");
    if is_true("OTEL_SDK_DISABLED") {
        return Setup::Off;
    }
    if set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_none()
        && set("OTEL_EXPORTER_OTLP_ENDPOINT").is_none()
    {
        return Setup::Off;
    }
    let protocol = set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL"))
        .unwrap_or_else(|| "http/protobuf".to_owned());
    let transport = match protocol.trim() {
        "http/protobuf" => Transport::HttpProtobuf,
        "http/json" => Transport::HttpJson,
        "grpc" => Transport::Grpc,
        other => {
            return Setup::Unsupported(format!(
                "telemetry is off: unknown OTEL_EXPORTER_OTLP_PROTOCOL {other:?}; use \
                 http/protobuf, http/json or grpc"
            ));
        }
    };
    let flush_timeout = set("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
        .or_else(|| set("OTEL_EXPORTER_OTLP_TIMEOUT"))
        .and_then(|millis| millis.trim().parse::<u64>().ok())
        .map_or(DEFAULT_FLUSH_TIMEOUT, Duration::from_millis);
    Setup::On {
        transport,
        flush_timeout,
        capture_content: is_true("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
    }
}

/// Start exporting when the variables or `[telemetry]` ask for it, once per process (later
/// calls keep what the first decided); `warn` gets why not when they ask for something pincer
/// cannot do. Called before the turn's sink is built, outside any async runtime.
fn start(config: &TelemetryConfig, warn: &dyn Fn(&str)) -> Option<&'static Active> {
    let mut started = false;
    let active = ACTIVE.get_or_init(|| {
        started = true;
        let lookup = |name: &str| environment(name).or_else(|| configured(config, name));
        build(config, &lookup, warn)
    });
    if started {
        // The flush at exit needs the providers; the spans need the tracer only.
        let providers = active.as_ref().map(|active| active.providers.clone());
        *PROVIDERS.lock().unwrap_or_else(PoisonError::into_inner) = providers;
    }
    active.as_ref().map(|active| &active.state)
}

/// The variable `name`, when it is set to more than blanks (a blank one counts as unset).
fn environment(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// The headers pincer hands the exporter: `[telemetry] headers`, unless
/// `OTEL_EXPORTER_OTLP_HEADERS` is set, which the exporter reads itself (over HTTP and gRPC).
fn configured_headers(config: &TelemetryConfig) -> Option<&BTreeMap<String, String>> {
    environment("OTEL_EXPORTER_OTLP_HEADERS")
        .is_none()
        .then_some(&config.headers)
}

/// The variable `name` as `[telemetry]` sets it.
fn configured(config: &TelemetryConfig, name: &str) -> Option<String> {
    match name {
        "OTEL_EXPORTER_OTLP_ENDPOINT" => config.endpoint.clone(),
        "OTEL_EXPORTER_OTLP_PROTOCOL" => config.protocol.clone(),
        "OTEL_EXPORTER_OTLP_TIMEOUT" => config.flush_timeout_ms.map(|millis| millis.to_string()),
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" => {
            config.capture_content.map(|capture| capture.to_string())
        }
        "OTEL_SDK_DISABLED" => config.enabled.map(|enabled| (!enabled).to_string()),
        _ => None,
    }
}

fn build(
    config: &TelemetryConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
    warn: &dyn Fn(&str),
) -> Option<Started> {
    let (transport, flush_timeout, capture_content) = match setup(lookup) {
        Setup::Off => return None,
        Setup::Unsupported(reason) => {
            warn(&reason);
            return None;
        }
        Setup::On {
            transport,
            flush_timeout,
            capture_content,
        } => (transport, flush_timeout, capture_content),
    };
    let failure = Failure::default();
    let built = match transport {
        Transport::Grpc => grpc::providers(config, flush_timeout, &failure),
        Transport::HttpProtobuf | Transport::HttpJson => providers(
            config,
            transport == Transport::HttpJson,
            flush_timeout,
            &failure,
        ),
    };
    let (tracer_provider, meter_provider) = match built {
        Ok(providers) => providers,
        Err(reason) => {
            warn(&format!("telemetry is off: {reason}"));
            return None;
        }
    };
    let incoming = TraceContextPropagator::new().extract(&incoming_headers(lookup));
    Some(Started {
        state: Active {
            tracer: tracer_provider.tracer("pincer"),
            incoming,
            capture_content,
            metrics: meter_provider
                .as_ref()
                .map(|provider| metrics::Instruments::new(&provider.meter("pincer"))),
        },
        providers: Telemetry {
            tracer_provider,
            meter_provider,
            flush_timeout,
            failure,
        },
    })
}

/// Why the exporters could not be built (telemetry is then off, with a warning).
#[derive(Debug, thiserror::Error)]
enum ExporterError {
    #[error(transparent)]
    Tls(#[from] rustls::Error),
    #[error("the HTTP client could not be built: {0}")]
    Client(reqwest::Error),
    #[error("the HTTP client could not be built")]
    ClientPanicked,
    #[error(transparent)]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    #[error("the gRPC exporter's runtime could not be started: {0}")]
    Runtime(std::io::Error),
    #[error("invalid OTLP endpoint {endpoint:?}: {reason}")]
    Endpoint { endpoint: String, reason: String },
    #[error("invalid OTLP header {0:?}")]
    Header(String),
}

/// The exporters and their providers: traces, and metrics when an endpoint for them is set
/// (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`; a traces-only endpoint
/// sends no metrics). One blocking HTTP client serves both; it is built on a thread of its own
/// (reqwest's blocking client must not be built inside an async runtime) with pincer's TLS.
fn providers(
    config: &TelemetryConfig,
    json: bool,
    timeout: Duration,
    failure: &Failure,
) -> Result<(SdkTracerProvider, Option<SdkMeterProvider>), ExporterError> {
    use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};

    let client = std::thread::spawn(move || {
        let tls = crate::tls::client_config()?;
        reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .build()
            .map_err(ExporterError::Client)
    })
    .join()
    .map_err(|_| ExporterError::ClientPanicked)??;
    let protocol = if json {
        Protocol::HttpJson
    } else {
        Protocol::HttpBinary
    };
    let from_environment = |name: &str| environment(name).is_some();
    // The exporter reads the variables itself; `[telemetry]` fills in what they leave unset.
    let configured_endpoint = |signal: &str| {
        let base = config.endpoint.as_deref()?;
        (!from_environment("OTEL_EXPORTER_OTLP_ENDPOINT")
            && !from_environment(&format!(
                "OTEL_EXPORTER_OTLP_{}_ENDPOINT",
                signal.to_uppercase()
            )))
        .then(|| format!("{}/v1/{signal}", base.trim_end_matches('/')))
    };
    let headers: HashMap<String, String> = configured_headers(config)
        .map(|headers| headers.clone().into_iter().collect())
        .unwrap_or_default();
    let mut builder = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client.clone())
        .with_protocol(protocol)
        .with_timeout(timeout)
        .with_headers(headers.clone());
    if let Some(endpoint) = configured_endpoint("traces") {
        builder = builder.with_endpoint(endpoint);
    }
    let spans = builder.build()?;
    let metrics_endpoint = from_environment("OTEL_EXPORTER_OTLP_ENDPOINT")
        || from_environment("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        || config.endpoint.is_some();
    let metrics = if metrics_endpoint {
        let mut builder = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(protocol)
            .with_timeout(timeout)
            .with_headers(headers);
        if let Some(endpoint) = configured_endpoint("metrics") {
            builder = builder.with_endpoint(endpoint);
        }
        Some(builder.build()?)
    } else {
        None
    };
    Ok(assemble(
        spans,
        metrics,
        failure,
        config.service_name.as_deref(),
    ))
}

/// The tracer provider around `spans` (its failures noted in `failure`) and, when there is a
/// metrics exporter, the meter provider around it, both with the run's resource: the same for
/// every transport.
fn assemble<S, M>(
    spans: S,
    metrics: Option<M>,
    failure: &Failure,
    service_name: Option<&str>,
) -> (SdkTracerProvider, Option<SdkMeterProvider>)
where
    S: SpanExporter + 'static,
    M: opentelemetry_sdk::metrics::exporter::PushMetricExporter,
{
    let exporter = Noting {
        inner: spans,
        failure: Arc::clone(failure),
    };
    let resource = resource(service_name);
    let tracer_provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.clone())
        .build();
    let meter_provider = metrics.map(|exporter| {
        SdkMeterProvider::builder()
            .with_periodic_exporter(exporter)
            .with_resource(resource)
            .build()
    });
    (tracer_provider, meter_provider)
}

/// The resource from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`; the service is
/// `[telemetry] service_name`, else `pincer`, unless they name one.
fn resource(configured: Option<&str>) -> opentelemetry_sdk::Resource {
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some_and(|name| !name.is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES")
            .is_ok_and(|attributes| attributes.contains("service.name="));
    let builder = opentelemetry_sdk::Resource::builder();
    if named {
        builder.build()
    } else {
        builder
            .with_service_name(configured.unwrap_or("pincer").to_owned())
            .build()
    }
}

fn incoming_headers(lookup: &dyn Fn(&str) -> Option<String>) -> HashMap<String, String> {
    [("traceparent", "TRACEPARENT"), ("tracestate", "TRACESTATE")]
        .into_iter()
        .filter_map(|(header, variable)| Some((header.to_owned(), lookup(variable)?)))
        .collect()
}

/// End the run's export: flush what is left, waiting at most the flush timeout and never past
/// the run's `--timeout` ([`flush_wait`]); a failure or a timeout is a warning, never an error of
/// the run. SIGTERM or SIGINT during the flush ends it: the export is dropped with a warning and
/// the signal is returned, for the process to exit 143 or 130 as it would have during the run.
pub(crate) fn finish(warn: &dyn Fn(&str)) -> Option<CancelReason> {
    let taken = PROVIDERS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    let telemetry = taken?;
    set_current(None);
    let (timeout, cut_by_run) = flush_wait(
        telemetry.flush_timeout,
        crate::fs::wait_deadline(),
        Instant::now(),
    );
    if timeout.is_zero() {
        warn(
            "telemetry: the traces and metrics were not exported: the run's --timeout left no time to flush them",
        );
        return None;
    }
    let failure = Arc::clone(&telemetry.failure);
    let (done, outcome) = tokio::sync::oneshot::channel();
    // The flush runs on its own thread: a collector that accepts the connection and never
    // answers must not hold the exit longer than the timeout, nor past a signal.
    let flusher = std::thread::Builder::new()
        .name("pincer-otel-flush".to_owned())
        .spawn(move || {
            let traces = telemetry.tracer_provider.shutdown_with_timeout(timeout);
            let metrics = telemetry
                .meter_provider
                .map_or(Ok(()), |provider| provider.shutdown_with_timeout(timeout));
            let _ = done.send(traces.and(metrics).map_err(|error| error.to_string()));
        });
    if flusher.is_err() {
        warn("telemetry: the traces were not exported (no thread to flush them)");
        return None;
    }
    match wait_for_flush(outcome, timeout) {
        Flushed::Done(Ok(())) => {
            if let Some(error) = failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
            {
                warn(&format!("telemetry: the traces were not exported: {error}"));
            }
            None
        }
        Flushed::Done(Err(error)) => {
            warn(&format!("telemetry: the traces were not exported: {error}"));
            None
        }
        Flushed::TimedOut => {
            let bound = if cut_by_run {
                "what was left of the run's --timeout"
            } else {
                "OTEL_EXPORTER_OTLP_TIMEOUT"
            };
            warn(&format!(
                "telemetry: the traces and metrics were not exported within {} ms ({bound})",
                timeout.as_millis()
            ));
            None
        }
        Flushed::Signal(reason) => {
            warn(&format!(
                "telemetry: the traces and metrics were not exported: {}",
                reason.message()
            ));
            Some(reason)
        }
    }
}

/// How long the flush at exit may wait: the flush timeout, cut to what is left of the run's
/// deadline (`--timeout`, counted from process start) when there is one; and whether the deadline
/// is what cut it.
fn flush_wait(
    flush_timeout: Duration,
    deadline: Option<Instant>,
    now: Instant,
) -> (Duration, bool) {
    match deadline {
        Some(deadline) if deadline.saturating_duration_since(now) < flush_timeout => {
            (deadline.saturating_duration_since(now), true)
        }
        _ => (flush_timeout, false),
    }
}

/// The next delivery of `listener`'s signal; never without a listener.
async fn received(listener: Option<&mut tokio::signal::unix::Signal>) -> Option<()> {
    match listener {
        Some(listener) => listener.recv().await,
        None => std::future::pending().await,
    }
}

/// How the wait for the flush ended.
enum Flushed {
    /// The flush thread finished, with the exporters' outcome.
    Done(Result<(), String>),
    /// The wait ran out first.
    TimedOut,
    /// SIGTERM or SIGINT came first.
    Signal(CancelReason),
}

/// Wait up to `timeout` for the flush thread's `outcome`, giving way to SIGTERM and SIGINT (the
/// run's own handlers are gone by now: its runtime ended with the turn).
fn wait_for_flush(
    outcome: tokio::sync::oneshot::Receiver<Result<(), String>>,
    timeout: Duration,
) -> Flushed {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        // No runtime to hear signals with: wait for the thread alone.
        return match outcome.blocking_recv() {
            Ok(result) => Flushed::Done(result),
            Err(_) => Flushed::Done(Err("the flush thread stopped".to_owned())),
        };
    };
    runtime.block_on(async {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        tokio::select! {
            result = outcome => Flushed::Done(
                result.unwrap_or_else(|_| Err("the flush thread stopped".to_owned()))
            ),
            () = tokio::time::sleep(timeout) => Flushed::TimedOut,
            Some(()) = received(terminate.as_mut()) => Flushed::Signal(CancelReason::Terminate),
            Some(()) = received(interrupt.as_mut()) => Flushed::Signal(CancelReason::Interrupt),
        }
    })
}

fn set_current(context: Option<Context>) {
    *CURRENT.lock().unwrap_or_else(PoisonError::into_inner) = context;
}

/// Where the tools read a child's trace variables from: [`child_environment`] at the moment the
/// child starts.
pub(crate) fn child_trace() -> crate::trace::ChildTrace {
    crate::trace::ChildTrace::from_fn(child_environment)
}

/// `TRACEPARENT` and `TRACESTATE` for a child process started now: the innermost open span of
/// the run. Empty with telemetry off (the child inherits an incoming `TRACEPARENT` unchanged).
pub(crate) fn child_environment() -> Vec<(OsString, OsString)> {
    let current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(context) = current.as_ref() else {
        return Vec::new();
    };
    let mut headers: HashMap<String, String> = HashMap::new();
    TraceContextPropagator::new().inject_context(context, &mut headers);
    [("traceparent", "TRACEPARENT"), ("tracestate", "TRACESTATE")]
        .into_iter()
        .filter_map(|(header, variable)| {
            let value = headers.get(header)?;
            (!value.is_empty()).then(|| (variable.into(), value.into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Setup {
        let pairs: HashMap<String, String> = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        setup(&|name| pairs.get(name).cloned())
    }

    #[test]
    fn the_flush_waits_its_timeout_cut_to_what_is_left_of_the_runs_deadline() {
        let now = Instant::now();
        let two = Duration::from_secs(2);
        assert_eq!(flush_wait(two, None, now), (two, false));
        let later = now + Duration::from_secs(30);
        assert_eq!(flush_wait(two, Some(later), now), (two, false));
        let soon = now + Duration::from_millis(700);
        assert_eq!(
            flush_wait(two, Some(soon), now),
            (Duration::from_millis(700), true)
        );
        let past = now.checked_sub(Duration::from_secs(1)).unwrap_or(now);
        assert_eq!(flush_wait(two, Some(past), now), (Duration::ZERO, true));
    }

    #[test]
    fn telemetry_is_off_without_an_endpoint_or_when_the_sdk_is_disabled() {
        assert_eq!(with(&[]), Setup::Off);
        assert_eq!(with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]), Setup::Off);
        assert_eq!(
            with(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                ("OTEL_SDK_DISABLED", "true"),
            ]),
            Setup::Off
        );
    }

    #[test]
    fn an_endpoint_turns_it_on_with_protobuf_and_a_two_second_flush_by_default() {
        assert_eq!(
            with(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c/v1/traces")]),
            Setup::On {
                transport: Transport::HttpProtobuf,
                flush_timeout: Duration::from_secs(2),
                capture_content: false,
            }
        );
        assert_eq!(
            with(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "300"),
                ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true"),
            ]),
            Setup::On {
                transport: Transport::HttpJson,
                flush_timeout: Duration::from_millis(300),
                capture_content: true,
            }
        );
    }

    #[test]
    fn grpc_is_a_transport_and_an_unknown_protocol_leaves_it_off_with_a_reason() {
        assert!(matches!(
            with(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ]),
            Setup::On {
                transport: Transport::Grpc,
                ..
            }
        ));
        let setup = with(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "thrift"),
        ]);
        assert!(
            matches!(&setup, Setup::Unsupported(reason) if reason.contains("grpc")),
            "{setup:?}"
        );
    }
}
