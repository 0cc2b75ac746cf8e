//! The trace context a child process continues (SPEC §17): `TRACEPARENT` and `TRACESTATE` for
//! a command, a hook, an MCP server or a CLI backend started now, under the innermost open span
//! of the run. A base concept: the layers that start children carry a [`ChildTrace`] and ask it
//! when they start one; exporting spans is the command layer's concern, which makes the value.

use std::ffi::OsString;
use std::fmt;
use std::sync::Arc;

/// Where a child's trace variables come from; none when the run is not traced (the child then
/// inherits an incoming `TRACEPARENT` unchanged).
#[derive(Clone, Default)]
pub struct ChildTrace(Option<Arc<Source>>);

/// What reads the variables of the current span.
type Source = dyn Fn() -> Vec<(OsString, OsString)> + Send + Sync;

impl ChildTrace {
    /// Trace variables read, each time a child starts, from `source` (the exporter's current
    /// span).
    pub fn from_fn(source: impl Fn() -> Vec<(OsString, OsString)> + Send + Sync + 'static) -> Self {
        ChildTrace(Some(Arc::new(source)))
    }

    /// The variables for a child started now: empty when the run is not traced.
    pub fn environment(&self) -> Vec<(OsString, OsString)> {
        self.0.as_ref().map_or_else(Vec::new, |source| source())
    }
}

impl fmt::Debug for ChildTrace {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(if self.0.is_some() {
            "ChildTrace(traced)"
        } else {
            "ChildTrace(off)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_gets_the_variables_of_the_moment_it_starts() {
        assert!(ChildTrace::default().environment().is_empty());
        let span = Arc::new(std::sync::Mutex::new("00-a-b-01"));
        let current = Arc::clone(&span);
        let trace = ChildTrace::from_fn(move || {
            vec![("TRACEPARENT".into(), (*current.lock().unwrap()).into())]
        });
        assert_eq!(trace.environment()[0].1, "00-a-b-01");
        *span.lock().unwrap() = "00-c-d-01";
        assert_eq!(trace.environment()[0].1, "00-c-d-01");
    }
}
