//! "Did you mean": the word a typo most likely meant, for the hints of an unknown subcommand,
//! model or key.

/// The candidate a mistyped `word` most likely meant: the nearest by edit distance, when it is
/// near enough to be a typo (one edit for short words, two for longer ones, a third for long
/// ones; an adjacent swap, `rnu` for `run`, is one edit) rather than another word. Case is ignored; ties go to the earlier candidate.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let word = word.to_lowercase();
    let allowed = match word.chars().count() {
        0..=4 => 1,
        5..=12 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|candidate| {
            (
                strsim::osa_distance(&word, &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_word_it_meant_and_another_word_finds_nothing() {
        let commands = ["run", "resume", "sessions", "status", "auth"];
        assert_eq!(closest("rnu", commands), Some("run"));
        assert_eq!(closest("resum", commands), Some("resume"));
        assert_eq!(closest("sesions", commands), Some("sessions"));
        assert_eq!(closest("Status", commands), Some("status"));
        assert_eq!(closest("fix", commands), None);
        assert_eq!(closest("fix the bug", commands), None);
        assert_eq!(
            closest("claude-sonet-4-5", ["claude-sonnet-4-5", "claude-opus-4-5"]),
            Some("claude-sonnet-4-5")
        );
    }
}
