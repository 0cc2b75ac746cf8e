//! Running a compaction: plan the cut, ask the model for the summary (or fall back to the lists
//! when that call fails), append the `compaction` entry, and rebuild the context from it.
//! Used by the turn loop (threshold and overflow) and by `pincer compact`.

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::compaction::{self, cut::CutPlan};
use super::transcript::Transcript;
use crate::conversation::TokenUsage;
use crate::provider::http::{self, CallOutcome, Endpoint};
use crate::provider::{self, ApiKind, ModelRequest, ThinkingLevel};
use crate::session::context::build_context;
use crate::session::record::AgentMessage;
use crate::session::store::SessionError;
use crate::session::summary::estimate_tokens;

/// What a compaction did.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    /// Context tokens before (usage of the last call plus estimates of later messages).
    pub tokens_before: u64,
    /// Estimated context tokens after.
    pub tokens_after: u64,
    /// The id of the first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// The summary written into the entry.
    pub summary: String,
    /// Whether the model wrote the summary (false: the fallback lists were used).
    pub summarized_by_model: bool,
    /// Usage of the summary call.
    pub usage: TokenUsage,
}

/// How to reach the model that writes summaries.
#[derive(Debug, Clone)]
pub struct SummaryModel<'a> {
    /// Protocol.
    pub api: ApiKind,
    /// Where and with which key.
    pub endpoint: &'a Endpoint,
    /// Model id.
    pub model: &'a str,
    /// Output limit for the summary.
    pub max_output_tokens: u64,
    /// Silence limit.
    pub idle_timeout: Duration,
}

/// The plan for compacting the transcript's current branch now, if there is anything to do.
pub fn plan(transcript: &Transcript, keep_recent_tokens: u64) -> Option<CutPlan> {
    compaction::cut::plan(transcript.entries(), None, keep_recent_tokens)
}

/// Compact the transcript's branch: one summary call, then a `compaction` entry. Returns `None`
/// when there is nothing to compact, or when `cancel` fired during the summary call (nothing is
/// written then). The history is cut even when the summary call fails.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site per trigger; a struct adds nothing"
)]
pub async fn run(
    client: &reqwest::Client,
    summary_model: &SummaryModel<'_>,
    transcript: &mut Transcript,
    keep_recent_tokens: u64,
    instructions: Option<&str>,
    cancel: &CancellationToken,
    messages_out: &mut Vec<AgentMessage>,
    plan_in: Option<CutPlan>,
) -> Result<Option<Compacted>, SessionError> {
    let Some(plan) = plan_in.or_else(|| plan(transcript, keep_recent_tokens)) else {
        return Ok(None);
    };
    let request = compaction::summary::summary_request(&plan, instructions);
    let model_request = ModelRequest {
        model: summary_model.model.to_owned(),
        system_prompt: request.system_prompt,
        messages: request.messages,
        tools: Vec::new(),
        thinking: ThinkingLevel::Off,
        thinking_budget: None,
        max_output_tokens: summary_model.max_output_tokens,
        reasoning_model: false,
    };
    let protocol = provider::protocol(summary_model.api, &model_request);
    let outcome = http::call(
        client,
        summary_model.endpoint,
        protocol,
        summary_model.idle_timeout,
        cancel,
        &mut |_| {},
    )
    .await;
    if let CallOutcome::Cancelled { .. } = outcome {
        // A signal or the timeout: leave the history as it is rather than cut it with the
        // fallback summary; the next run compacts again.
        return Ok(None);
    }
    let (model_summary, usage) = match &outcome {
        CallOutcome::Complete(accumulator) => {
            let text = accumulator.text();
            (
                (!text.trim().is_empty()).then_some(text),
                accumulator.usage(),
            )
        }
        CallOutcome::Failed { partial, .. } | CallOutcome::Cancelled { partial } => {
            (None, partial.usage())
        }
    };
    let mut summarized: Vec<AgentMessage> = plan.to_summarize.clone();
    summarized.extend(plan.turn_prefix.iter().cloned());
    let files = compaction::summary::file_operations(&summarized, plan.previous_details.as_ref());
    let failures = compaction::summary::tool_failures(&summarized);
    let summary = compaction::summary::finish_summary(model_summary.as_deref(), &files, &failures);
    transcript.append(
        "compaction",
        json!({
            "summary": summary,
            "firstKeptEntryId": plan.first_kept_entry_id,
            "tokensBefore": plan.tokens_before,
            "details": compaction::summary::details(&files),
        }),
    )?;
    transcript.sync()?;
    let rebuilt = build_context(transcript.entries(), None).messages;
    let tokens_after = estimate_tokens(&rebuilt);
    *messages_out = rebuilt;
    Ok(Some(Compacted {
        tokens_before: plan.tokens_before,
        tokens_after,
        first_kept_entry_id: plan.first_kept_entry_id,
        summary,
        summarized_by_model: model_summary.is_some(),
        usage,
    }))
}
