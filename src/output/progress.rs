//! A stderr spinner for slow maintenance work, shown only on a terminal and never with `-q`.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::Diagnostics;

/// A spinner that exists only when a person is watching.
#[derive(Debug)]
pub struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// Start a spinner with `message` when stderr is a terminal and not quiet; else a no-op.
    pub fn start(diagnostics: &Diagnostics, message: &str) -> Spinner {
        if !diagnostics.is_terminal() || diagnostics.is_quiet() {
            return Spinner { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            bar.set_style(style);
        }
        bar.set_message(message.to_owned());
        bar.enable_steady_tick(Duration::from_millis(100));
        Spinner { bar: Some(bar) }
    }

    /// Change the message.
    pub fn set_message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
