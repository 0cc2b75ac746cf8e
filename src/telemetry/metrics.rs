//! The run's metrics (SPEC §17), over the same exporter as its spans: the GenAI client
//! histograms and pincer's own counters.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};

/// The instruments, made once per run.
pub(super) struct Instruments {
    /// `gen_ai.client.token.usage`: tokens per model call, by `gen_ai.token.type`.
    tokens: Histogram<u64>,
    /// `gen_ai.client.operation.duration`: seconds per model call.
    duration: Histogram<f64>,
    /// `pincer.cost`: US dollars spent, per run.
    cost: Counter<f64>,
    /// `pincer.tool.calls`: tool calls, by name and outcome.
    tool_calls: Counter<u64>,
    /// `pincer.runs`: runs, by how they ended.
    runs: Counter<u64>,
}

/// The GenAI semantic conventions' bucket boundaries.
const TOKEN_BOUNDARIES: [f64; 14] = [
    1.0,
    4.0,
    16.0,
    64.0,
    256.0,
    1024.0,
    4096.0,
    16384.0,
    65536.0,
    262_144.0,
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
];
const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// What describes one model call in its metrics.
pub(super) struct Call<'a> {
    pub provider: &'a str,
    pub request_model: &'a str,
    pub response_model: &'a str,
    pub input: u64,
    pub output: u64,
    pub seconds: f64,
    pub error: bool,
}

impl Instruments {
    pub(super) fn new(meter: &Meter) -> Instruments {
        Instruments {
            tokens: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens used per model call")
                .with_boundaries(TOKEN_BOUNDARIES.to_vec())
                .build(),
            duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("Duration of a model call")
                .with_boundaries(DURATION_BOUNDARIES.to_vec())
                .build(),
            cost: meter
                .f64_counter("pincer.cost")
                .with_unit("USD")
                .with_description("Cost of the runs")
                .build(),
            tool_calls: meter
                .u64_counter("pincer.tool.calls")
                .with_unit("{call}")
                .with_description("Tool calls, by tool and outcome")
                .build(),
            runs: meter
                .u64_counter("pincer.runs")
                .with_unit("{run}")
                .with_description("Runs, by how they ended")
                .build(),
        }
    }

    pub(super) fn model_call(&self, call: &Call<'_>) {
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", call.provider.to_owned()),
            KeyValue::new("gen_ai.request.model", call.request_model.to_owned()),
            KeyValue::new("gen_ai.response.model", call.response_model.to_owned()),
        ];
        if call.error {
            attributes.push(KeyValue::new("error.type", "model_error"));
        }
        self.duration.record(call.seconds, &attributes);
        for (kind, count) in [("input", call.input), ("output", call.output)] {
            let mut attributes = attributes.clone();
            attributes.push(KeyValue::new("gen_ai.token.type", kind));
            self.tokens.record(count, &attributes);
        }
    }

    pub(super) fn tool_call(&self, name: &str, outcome: &'static str) {
        self.tool_calls.add(
            1,
            &[
                KeyValue::new("gen_ai.tool.name", name.to_owned()),
                KeyValue::new("pincer.tool.outcome", outcome),
            ],
        );
    }

    pub(super) fn run(&self, cost: f64, ending: &str) {
        let attributes = [KeyValue::new("pincer.terminal_reason", ending.to_owned())];
        self.cost.add(cost, &attributes);
        self.runs.add(1, &attributes);
    }
}
