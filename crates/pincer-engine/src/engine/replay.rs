//! Text a retried call repeats (SPEC §9.3): a stream that broke after it printed text is sent
//! again, and the retried answer usually starts with the same words. What was printed is not
//! printed again; a retried answer that goes its own way is printed in full after a notice.
//! Pure, and the same for both engines.

/// What a retried call does with text the broken call already showed (SPEC §9.3): a retry that
/// repeats it shows only what follows, so nothing is printed twice; a retry that goes its own way
/// is shown in full after a notice.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Replay {
    /// Text already shown that the retried call should repeat; empty when no replay is active.
    shown: String,
    /// How many bytes of `shown` the retried call has repeated so far.
    matched: usize,
}

/// The fate of one text delta of a retried call.
#[derive(Debug, PartialEq, Eq)]
pub enum ReplayStep {
    /// Show this text (all of the delta, or the part after the repeated text).
    Show(String),
    /// The delta repeats text already shown: show nothing.
    Hide,
    /// The retried call differs from what was shown: this is its whole text so far.
    Diverged(String),
}

impl Replay {
    pub fn start(shown: String) -> Replay {
        Replay { shown, matched: 0 }
    }

    pub fn active(&self) -> bool {
        !self.shown.is_empty()
    }

    pub fn pass(&mut self, delta: &str) -> ReplayStep {
        if !self.active() {
            return ReplayStep::Show(delta.to_owned());
        }
        let rest = &self.shown[self.matched..];
        let common: usize = rest
            .chars()
            .zip(delta.chars())
            .take_while(|(left, right)| left == right)
            .map(|(left, _)| left.len_utf8())
            .sum();
        if common == delta.len() {
            self.matched += common;
            if self.matched == self.shown.len() {
                *self = Replay::default();
            }
            return ReplayStep::Hide;
        }
        if common == rest.len() {
            *self = Replay::default();
            return ReplayStep::Show(delta[common..].to_owned());
        }
        let mut whole = self.shown[..self.matched].to_owned();
        whole.push_str(delta);
        *self = Replay::default();
        ReplayStep::Diverged(whole)
    }

    /// At the end of the retried call: the text it repeated, when it stopped short of what was
    /// shown (a shorter answer is a different answer too).
    pub fn finish(&mut self) -> Option<String> {
        let active = self.active();
        let repeated = self.shown[..self.matched].to_owned();
        *self = Replay::default();
        active.then_some(repeated)
    }
}

/// Said on stderr when a retried call does not repeat the text the broken call printed.
pub const DIVERGED_NOTICE: &str = "the retried answer differs from the text printed before the \
     stream broke off; the retried answer follows in full";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_that_repeats_the_shown_text_shows_only_what_follows() {
        let mut replay = Replay::start("Hello wor".to_owned());
        assert_eq!(replay.pass("Hel"), ReplayStep::Hide);
        assert_eq!(replay.pass("lo w"), ReplayStep::Hide);
        assert_eq!(replay.pass("orld."), ReplayStep::Show("ld.".to_owned()));
        assert!(!replay.active());
        assert_eq!(replay.pass(" More"), ReplayStep::Show(" More".to_owned()));
        assert_eq!(replay.finish(), None);
    }

    #[test]
    fn a_retry_that_ends_exactly_at_the_shown_text_shows_nothing_more() {
        let mut replay = Replay::start("Grüße".to_owned());
        assert_eq!(replay.pass("Grü"), ReplayStep::Hide);
        assert_eq!(replay.pass("ße"), ReplayStep::Hide);
        assert_eq!(replay.finish(), None);
    }

    #[test]
    fn a_retry_that_goes_its_own_way_returns_its_whole_text() {
        let mut replay = Replay::start("First try".to_owned());
        assert_eq!(replay.pass("Fir"), ReplayStep::Hide);
        assert_eq!(
            replay.pass("m answer"),
            ReplayStep::Diverged("Firm answer".to_owned())
        );
        assert_eq!(replay.pass("!"), ReplayStep::Show("!".to_owned()));
    }

    #[test]
    fn a_retry_shorter_than_the_shown_text_is_reported_at_the_end() {
        let mut replay = Replay::start("Hello world".to_owned());
        assert_eq!(replay.pass("Hello"), ReplayStep::Hide);
        assert_eq!(replay.finish(), Some("Hello".to_owned()));
        assert_eq!(Replay::default().finish(), None);
    }
}
