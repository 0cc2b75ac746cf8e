//! The spans of a run, built from the engine's events on their way to the output sink.
//!
//! Message content (SPEC §17) is exported only with `capture_content`, in the GenAI semantic
//! conventions' JSON attributes on `invoke_agent`: `gen_ai.system_instructions`,
//! `gen_ai.input.messages` (the user message) and `gen_ai.output.messages` (the answer).

use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};

use std::time::Instant;

use serde::Serialize;

use super::metrics::Call;
use super::{Active, set_current, start};
use crate::config::file::TelemetryConfig;
use crate::engine::event::{Event, EventSink, McpServer, Phase, RetryKind};
use crate::output::events::OutputSink;
use crate::output::schema::RunResult;

/// `inner`, with the run's spans made from every event on the way; `inner` itself when
/// telemetry is off. The first call starts telemetry (SPEC §17) with `config` under the
/// variables.
pub(crate) fn watch(
    inner: Box<dyn OutputSink>,
    config: &TelemetryConfig,
    warn: &dyn Fn(&str),
) -> Box<dyn OutputSink> {
    let Some(active) = start(config, warn) else {
        return inner;
    };
    let agent = span(
        active,
        &active.incoming,
        "invoke_agent".to_owned(),
        SpanKind::Internal,
        vec![KeyValue::new("gen_ai.operation.name", "invoke_agent")],
    );
    set_current(Some(agent.clone()));
    Box::new(Traced {
        inner,
        active,
        agent,
        chat: None,
        call: None,
        tool: None,
        compaction: None,
        hooks: Vec::new(),
    })
}

fn span(
    active: &Active,
    parent: &Context,
    name: String,
    kind: SpanKind,
    attributes: Vec<KeyValue>,
) -> Context {
    let span = active
        .tracer
        .span_builder(name)
        .with_kind(kind)
        .with_attributes(attributes)
        .start_with_context(&active.tracer, parent);
    parent.with_span(span)
}

struct Traced {
    inner: Box<dyn OutputSink>,
    active: &'static Active,
    agent: Context,
    /// The model call in progress.
    chat: Option<Context>,
    /// Its provider, model and start, for the metrics.
    call: Option<(String, String, Instant)>,
    /// The tool call in progress, with its id and name.
    tool: Option<(String, String, Context)>,
    compaction: Option<Context>,
    /// The hooks running, by id (in the order they started).
    hooks: Vec<(String, Context)>,
}

impl Traced {
    /// The span a child started now belongs to.
    fn innermost(&self) -> &Context {
        self.hooks
            .last()
            .map(|(_, hook)| hook)
            .or(self.compaction.as_ref())
            .or(self.tool.as_ref().map(|(_, _, tool)| tool))
            .or(self.chat.as_ref())
            .unwrap_or(&self.agent)
    }

    /// The span of what runs now, for events: the model call, else the run.
    fn calling(&self) -> &Context {
        self.chat.as_ref().unwrap_or(&self.agent)
    }

    fn see(&mut self, event: &Event) {
        match event {
            Event::Init(init) => {
                let span = self.agent.span();
                span.set_attribute(KeyValue::new("gen_ai.provider.name", init.provider.clone()));
                span.set_attribute(KeyValue::new("gen_ai.request.model", init.model.clone()));
                span.set_attribute(KeyValue::new("pincer.backend", init.backend));
                if let Some(id) = &init.session_id {
                    span.set_attribute(KeyValue::new("gen_ai.conversation.id", id.clone()));
                }
                for server in &init.mcp_servers {
                    mcp_start_span(self.active, &self.agent, server);
                }
            }
            Event::Input(input) if self.active.capture_content => {
                let span = self.agent.span();
                if !input.system.is_empty() {
                    span.set_attribute(KeyValue::new(
                        "gen_ai.system_instructions",
                        content_json(&[Part::text(&input.system)]),
                    ));
                }
                span.set_attribute(KeyValue::new(
                    "gen_ai.input.messages",
                    content_json(&[ChatMessage::text("user", &input.prompt)]),
                ));
            }
            Event::Phase(Phase::Connecting(reference)) => {
                end(self.chat.take());
                let (provider, model) = reference
                    .split_once('/')
                    .unwrap_or(("", reference.as_str()));
                let mut attributes = vec![
                    KeyValue::new("gen_ai.operation.name", "chat"),
                    KeyValue::new("gen_ai.request.model", model.to_owned()),
                ];
                if !provider.is_empty() {
                    attributes.push(KeyValue::new("gen_ai.provider.name", provider.to_owned()));
                }
                self.call = Some((provider.to_owned(), model.to_owned(), Instant::now()));
                self.chat = Some(span(
                    self.active,
                    &self.agent,
                    format!("chat {model}"),
                    SpanKind::Client,
                    attributes,
                ));
            }
            Event::Assistant(done) => {
                let Some(chat) = self.chat.take() else {
                    return;
                };
                let span = chat.span();
                let message = &done.message;
                let usage = &message.usage;
                let finish = done
                    .stop_reason
                    .map_or_else(|| format!("{:?}", message.stop_reason), str::to_owned);
                span.set_attributes([
                    KeyValue::new("gen_ai.response.model", message.model.clone()),
                    KeyValue::new("gen_ai.response.id", done.message_id.clone()),
                    KeyValue::new(
                        "gen_ai.response.finish_reasons",
                        Value::Array(Array::String(vec![StringValue::from(finish)])),
                    ),
                    // All input tokens, the cached ones included (the conventions' definition).
                    KeyValue::new(
                        "gen_ai.usage.input_tokens",
                        tokens(usage.input + usage.cache_read + usage.cache_write),
                    ),
                    KeyValue::new("gen_ai.usage.output_tokens", tokens(usage.output)),
                    KeyValue::new(
                        "gen_ai.usage.cache_read.input_tokens",
                        tokens(usage.cache_read),
                    ),
                    KeyValue::new(
                        "gen_ai.usage.cache_creation.input_tokens",
                        tokens(usage.cache_write),
                    ),
                    KeyValue::new("pincer.cost.usd", message.cost.total),
                ]);
                if let Some(error) = &message.error_message {
                    span.set_status(Status::error(error.clone()));
                }
                span.end();
                if let (Some(metrics), Some((provider, model, started))) =
                    (&self.active.metrics, self.call.take())
                {
                    metrics.model_call(&Call {
                        provider: &provider,
                        request_model: &model,
                        response_model: &message.model,
                        input: usage.input + usage.cache_read + usage.cache_write,
                        output: usage.output,
                        seconds: started.elapsed().as_secs_f64(),
                        error: message.error_message.is_some(),
                    });
                }
            }
            Event::Retry(retry) => {
                let kind = match retry.kind {
                    RetryKind::Resend => "resend",
                    RetryKind::DiscardedPartial => "discarded_partial",
                    RetryKind::ThinkingLevel(_) => "thinking_level",
                    RetryKind::Child => "child",
                };
                let mut attributes = vec![KeyValue::new("pincer.retry.kind", kind)];
                if let Some(attempt) = retry.attempt {
                    attributes.push(KeyValue::new("pincer.retry.attempt", tokens(attempt)));
                }
                self.calling().span().add_event("retry", attributes);
            }
            Event::Rotation(_) => {
                self.calling()
                    .span()
                    .add_event("credential_rotation", Vec::new());
            }
            Event::Fallback(fallback) => {
                if let Some(chat) = self.chat.take() {
                    chat.span()
                        .set_status(Status::error(fallback.reason.to_owned()));
                    chat.span().end();
                }
                self.agent.span().add_event(
                    "failover",
                    vec![
                        KeyValue::new("pincer.failover.from", fallback.from.clone()),
                        KeyValue::new("pincer.failover.to", fallback.to.clone()),
                        KeyValue::new("error.type", fallback.reason),
                    ],
                );
            }
            Event::Phase(Phase::Compacting) => {
                end(self.compaction.take());
                self.compaction = Some(span(
                    self.active,
                    &self.agent,
                    "compact".to_owned(),
                    SpanKind::Internal,
                    Vec::new(),
                ));
            }
            Event::Compaction(compaction) => {
                let attributes = [
                    Some(KeyValue::new(
                        "pincer.compaction.trigger",
                        compaction.trigger.clone(),
                    )),
                    compaction.pre_tokens.map(|tokens| {
                        KeyValue::new("pincer.compaction.tokens_before", count(tokens))
                    }),
                    compaction.post_tokens.map(|tokens| {
                        KeyValue::new("pincer.compaction.tokens_after", count(tokens))
                    }),
                ];
                match self.compaction.take() {
                    Some(span) => {
                        span.span().set_attributes(attributes.into_iter().flatten());
                        span.span().end();
                    }
                    // A CLI child compacted its own session: an event of the run.
                    None => self
                        .agent
                        .span()
                        .add_event("compaction", attributes.into_iter().flatten().collect()),
                }
            }
            Event::ToolStarted(start) => {
                if let Some((_, _, tool)) = self.tool.take() {
                    tool.span().end();
                }
                let tool = span(
                    self.active,
                    &self.agent,
                    format!("execute_tool {}", start.name),
                    SpanKind::Internal,
                    vec![
                        KeyValue::new("gen_ai.operation.name", "execute_tool"),
                        KeyValue::new("gen_ai.tool.name", start.name.clone()),
                        KeyValue::new("gen_ai.tool.call.id", start.id.clone()),
                    ],
                );
                self.tool = Some((start.id.clone(), start.name.clone(), tool));
            }
            Event::ToolFinished(finished) => {
                let Some((_, name, tool)) = self.tool.take_if(|(id, _, _)| *id == finished.id)
                else {
                    return;
                };
                let outcome = match (finished.refused, finished.is_error) {
                    (true, _) => "denied",
                    (false, true) => "error",
                    (false, false) => "success",
                };
                let span = tool.span();
                span.set_attribute(KeyValue::new("pincer.tool.outcome", outcome));
                if finished.is_error {
                    span.set_status(Status::error(outcome));
                }
                span.end();
                if let Some(metrics) = &self.active.metrics {
                    metrics.tool_call(&name, outcome);
                }
            }
            Event::Hook(crate::hooks::HookProgress::Started(hook)) => {
                let parent = self.innermost().clone();
                let hook_span = span(
                    self.active,
                    &parent,
                    format!("hook {}", hook.name),
                    SpanKind::Internal,
                    vec![KeyValue::new("pincer.hook.event", hook.event)],
                );
                self.hooks.push((hook.id.clone(), hook_span));
            }
            Event::Hook(crate::hooks::HookProgress::Finished(hook)) => {
                if let Some(at) = self.hooks.iter().position(|(id, _)| *id == hook.id) {
                    let (_, hook_span) = self.hooks.remove(at);
                    let span = hook_span.span();
                    span.set_attribute(KeyValue::new("pincer.hook.outcome", hook.outcome));
                    if hook.outcome != "success" {
                        span.set_status(Status::error(hook.ending.clone()));
                    }
                    span.end();
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, result: &RunResult) {
        end(self.chat.take());
        end(self.compaction.take());
        end(self.tool.take().map(|(_, _, tool)| tool));
        for (_, hook) in self.hooks.drain(..) {
            hook.span().end();
        }
        let span = self.agent.span();
        if let Some(id) = &result.session_id {
            span.set_attribute(KeyValue::new("gen_ai.conversation.id", id.clone()));
        }
        if let Some(name) = &result.session_name {
            span.set_attribute(KeyValue::new("pincer.session.name", name.clone()));
        }
        span.set_attributes([
            KeyValue::new("pincer.cost.usd", result.total_cost_usd),
            KeyValue::new("pincer.num_turns", i64::from(result.num_turns)),
            KeyValue::new("pincer.terminal_reason", result.terminal_reason.clone()),
        ]);
        if self.active.capture_content {
            span.set_attribute(KeyValue::new(
                "gen_ai.output.messages",
                content_json(&[ChatMessage::text("assistant", &result.result)]),
            ));
        }
        if result.is_error {
            span.set_status(Status::error(result.terminal_reason.clone()));
        }
        span.end();
        if let Some(metrics) = &self.active.metrics {
            metrics.run(result.total_cost_usd, &result.terminal_reason);
        }
    }
}

/// A span for one MCP server's start, under the run's span, with the times the start really took
/// (the servers start before the turn's first event; the init event reports them). Its name,
/// transport, outcome and, for a failure, the class of the error: never the message, which can
/// hold the server's words, paths or URLs, nor its environment or headers.
fn mcp_start_span(active: &Active, agent: &Context, server: &McpServer) {
    let Some(start) = &server.start else {
        return;
    };
    let mut attributes = vec![
        KeyValue::new("pincer.mcp.server", server.name.clone()),
        KeyValue::new("pincer.mcp.transport", server.transport.clone()),
        KeyValue::new(
            "pincer.mcp.outcome",
            if start.error_class.is_some() {
                "error"
            } else {
                "ok"
            },
        ),
    ];
    if let Some(class) = start.error_class {
        attributes.push(KeyValue::new("error.type", class));
    }
    let mut span = active
        .tracer
        .span_builder(format!("mcp_start {}", server.name))
        .with_kind(SpanKind::Internal)
        .with_start_time(start.at)
        .with_attributes(attributes)
        .start_with_context(&active.tracer, agent);
    if let Some(class) = start.error_class {
        span.set_status(Status::error(class));
    }
    span.end_with_timestamp(start.at + start.took);
}

/// A message as the GenAI conventions' content attributes hold it: a role and its parts.
#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    parts: [Part<'a>; 1],
}

impl<'a> ChatMessage<'a> {
    fn text(role: &'static str, content: &'a str) -> ChatMessage<'a> {
        ChatMessage {
            role,
            parts: [Part::text(content)],
        }
    }
}

/// One part of a message (pincer exports text parts only).
#[derive(Serialize)]
struct Part<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    content: &'a str,
}

impl<'a> Part<'a> {
    fn text(content: &'a str) -> Part<'a> {
        Part {
            kind: "text",
            content,
        }
    }
}

/// The JSON string of a content attribute.
fn content_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn end(context: Option<Context>) {
    if let Some(context) = context {
        context.span().end();
    }
}

/// Token counts as OpenTelemetry's integers (saturating: no count comes near).
fn tokens(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn count(value: u64) -> i64 {
    tokens(value)
}

impl EventSink for Traced {
    fn emit(&mut self, event: &Event) {
        self.see(event);
        set_current(Some(self.innermost().clone()));
        self.inner.emit(event);
    }
}

impl OutputSink for Traced {
    fn finish(&mut self, result: &RunResult) -> Result<(), crate::output::Undelivered> {
        self.close(result);
        set_current(None);
        self.inner.finish(result)
    }
}
