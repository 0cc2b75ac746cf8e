//! OTLP over gRPC (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`): opentelemetry-otlp's own tonic exporter,
//! on a channel pincer builds.
//!
//! The SDK exports from threads of its own that are no async runtime, and tonic's channel needs
//! one: its connection worker runs on a one-thread tokio runtime started here, on a thread of its
//! own, only when gRPC is asked for (it lives until the process exits). The channel connects with
//! hyper-rustls and [`crate::tls::client_config`], so an `https` collector is checked against the
//! same roots as every other connection, with ring, and tonic carries no TLS stack of its own.
//!
//! The endpoint is the collector's gRPC address as given (no `/v1/traces` path):
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (or `..._METRICS_ENDPOINT`), else
//! `OTEL_EXPORTER_OTLP_ENDPOINT`, else `[telemetry] endpoint`. The exporter itself reads
//! `OTEL_EXPORTER_OTLP_HEADERS` (and the per-signal variables) into gRPC metadata;
//! `[telemetry] headers` fill in when the variable is unset.

use std::collections::BTreeMap;
use std::time::Duration;

use opentelemetry_otlp::tonic_types::metadata::MetadataMap;
use opentelemetry_otlp::{WithExportConfig as _, WithTonicConfig as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tonic::transport::{Channel, Endpoint};

use super::{ExporterError, Failure, assemble, configured_headers, environment};
use crate::config::file::TelemetryConfig;

/// The providers exporting over gRPC: traces, and metrics when an endpoint for them is set (as
/// over HTTP, a traces-only endpoint sends no metrics).
pub(super) fn providers(
    config: &TelemetryConfig,
    timeout: Duration,
    failure: &Failure,
) -> Result<(SdkTracerProvider, Option<SdkMeterProvider>), ExporterError> {
    let endpoint = |signal: &str| {
        environment(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"))
            .or_else(|| environment("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .or_else(|| config.endpoint.clone())
    };
    let metadata = match configured_headers(config) {
        Some(headers) => metadata(headers)?,
        None => MetadataMap::new(),
    };
    let runtime = runtime()?;
    // The channel's worker is spawned on the runtime it is built in.
    let _entered = runtime.enter();

    let traces = endpoint("TRACES").ok_or_else(|| ExporterError::Endpoint {
        endpoint: String::new(),
        reason: "no endpoint is set".to_owned(),
    })?;
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_channel(channel(&traces, timeout)?)
        .with_metadata(metadata.clone())
        .with_timeout(timeout)
        .build()?;
    let metrics = match endpoint("METRICS") {
        Some(metrics) => Some(
            opentelemetry_otlp::MetricExporter::builder()
                .with_tonic()
                .with_channel(channel(&metrics, timeout)?)
                .with_metadata(metadata)
                .with_timeout(timeout)
                .build()?,
        ),
        None => None,
    };
    Ok(assemble(
        spans,
        metrics,
        failure,
        config.service_name.as_deref(),
    ))
}

/// A one-thread runtime on a thread of its own, for the channels' connection workers.
fn runtime() -> Result<tokio::runtime::Handle, ExporterError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExporterError::Runtime)?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name("pincer-otel-grpc".to_owned())
        .spawn(move || runtime.block_on(std::future::pending::<()>()))
        .map_err(ExporterError::Runtime)?;
    Ok(handle)
}

/// A channel to `endpoint` that connects on first use (so a collector that is down costs
/// nothing until the export), plain HTTP/2 for `http://`, TLS with pincer's rustls
/// configuration for `https://`; a connection or a call that takes longer than `timeout` fails.
fn channel(endpoint: &str, timeout: Duration) -> Result<Channel, ExporterError> {
    let mut tls = crate::tls::client_config()?;
    // hyper-rustls sets ALPN itself (h2 only: gRPC is HTTP/2).
    tls.alpn_protocols.clear();
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http2()
        .build();
    let endpoint = Endpoint::from_shared(endpoint.to_owned())
        .map_err(|error| ExporterError::Endpoint {
            endpoint: endpoint.to_owned(),
            reason: error.to_string(),
        })?
        .timeout(timeout)
        .connect_timeout(timeout);
    Ok(endpoint.connect_with_connector_lazy(connector))
}

/// `[telemetry] headers` as gRPC metadata.
fn metadata(headers: &BTreeMap<String, String>) -> Result<MetadataMap, ExporterError> {
    let mut map = http::HeaderMap::new();
    for (name, value) in headers {
        let header = http::HeaderName::from_bytes(name.trim().to_ascii_lowercase().as_bytes())
            .map_err(|_| ExporterError::Header(name.clone()))?;
        let value = http::HeaderValue::from_str(value.trim())
            .map_err(|_| ExporterError::Header(name.clone()))?;
        map.insert(header, value);
    }
    Ok(MetadataMap::from_headers(map))
}
