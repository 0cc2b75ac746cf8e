//! What pincer prints in the JSON modes, parsed with its own schema types
//! (`pincer::output::schema`). Those types deny unknown fields, so a line that grows a field the
//! schema does not declare, or changes a field's type, fails to parse here.

use std::process::Output;

use pincer::output::schema::{Line, RunResult};
use serde_json::Value;

/// One line of JSON output.
#[derive(Debug, Clone, PartialEq)]
pub enum Printed {
    /// A stream-json line other than the result.
    Line(Line),
    /// The `result` object (`--json`, and the last line of stream-json).
    Result(RunResult),
}

/// Parse one printed line with the schema type its `type` names.
fn parse(line: &str) -> Result<Printed, serde_json::Error> {
    let is_result = serde_json::from_str::<Value>(line)?["type"] == "result";
    if is_result {
        serde_json::from_str(line).map(Printed::Result)
    } else {
        serde_json::from_str(line).map(Printed::Line)
    }
}

/// Every line of `stdout`, parsed strictly; or which line does not fit: its number, serde's
/// error and the line itself.
pub fn printed(stdout: &str) -> Result<Vec<Printed>, String> {
    stdout
        .lines()
        .enumerate()
        .map(|(index, line)| {
            parse(line).map_err(|error| {
                format!(
                    "stdout line {} does not fit the schema: {error}\n{line}",
                    index + 1
                )
            })
        })
        .collect()
}

/// The result object on the last line of stdout, every line parsed strictly.
pub fn result_of(output: &Output) -> RunResult {
    let text = String::from_utf8_lossy(&output.stdout);
    match printed(&text)
        .unwrap_or_else(|error| panic!("{error}"))
        .pop()
    {
        Some(Printed::Result(result)) => result,
        other => panic!("the last line is not a result: {other:?}\n{text}"),
    }
}
