//! Stream parsing (to be written).

use crate::provider::sse::SseEvent;
use crate::provider::{ErrorDetails, ProviderError, StreamEvent, StreamParser};

/// The stream parser.
#[derive(Debug, Default)]
pub struct Parser {
    finished: bool,
}

impl Parser {
    /// A new parser.
    pub fn new() -> Parser {
        Parser::default()
    }
}

impl StreamParser for Parser {
    fn on_event(&mut self, _event: &SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        Ok(Vec::new())
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Map an error response body to details.
pub fn parse_error_body(_status: u16, body: &str) -> ErrorDetails {
    ErrorDetails {
        message: body.to_owned(),
        ..ErrorDetails::default()
    }
}
