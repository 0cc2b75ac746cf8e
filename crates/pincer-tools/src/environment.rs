//! The environment of the processes pincer starts (SPEC §10, §4.2.6): built explicitly from
//! pincer's own, never inherited wholesale, so a variable that was removed cannot come back.
//!
//! `exec` commands, CLI backends and (later) MCP stdio servers and hooks all get theirs from
//! [`child_environment`]: pincer's environment minus the variables named in a clear list, minus
//! every variable whose value is a key the run holds (whatever its name), plus the configured
//! additions.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// `parent` without the variables named in `clear` and without those whose value is one of
/// `secrets` (empty secrets are ignored), then `add` on top (an added name replaces an
/// inherited one). Order is kept, additions last.
pub fn child_environment(
    parent: impl Iterator<Item = (OsString, OsString)>,
    clear: &[String],
    secrets: &[&str],
    add: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    let holds_secret = |value: &OsString| {
        value.to_str().is_some_and(|value| {
            secrets
                .iter()
                .any(|secret| !secret.is_empty() && value.trim() == secret.trim())
        })
    };
    let mut environment: Vec<(OsString, OsString)> = parent
        .filter(|(name, value)| {
            let cleared = clear
                .iter()
                .any(|cleared| name.as_os_str() == cleared.as_str());
            let replaced = add.keys().any(|added| name.as_os_str() == added.as_str());
            !cleared && !replaced && !holds_secret(value)
        })
        .collect();
    for (name, value) in add {
        environment.push((name.into(), value.into()));
    }
    environment
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        items
            .iter()
            .map(|(name, value)| ((*name).into(), (*value).into()))
            .collect()
    }

    #[test]
    fn named_variables_and_any_variable_holding_a_key_are_removed_and_additions_come_last() {
        let parent = pairs(&[
            ("PATH", "/usr/bin"),
            ("ANTHROPIC_API_KEY", "sk-ant-one"),
            ("MY_COPY", "sk-ant-one"),
            ("PROFILE_COPY", " sk-profile-two\n"),
            ("LANG", "C"),
            ("CI", "false"),
        ]);
        let add = BTreeMap::from([("CI".to_owned(), "true".to_owned())]);
        let environment = child_environment(
            parent.into_iter(),
            &["ANTHROPIC_API_KEY".to_owned()],
            &["sk-ant-one", "sk-profile-two", ""],
            &add,
        );
        assert_eq!(
            environment,
            pairs(&[("PATH", "/usr/bin"), ("LANG", "C"), ("CI", "true")])
        );
    }

    #[test]
    fn an_empty_clear_list_and_no_secrets_keep_everything() {
        let parent = pairs(&[("A", "1"), ("EMPTY", "")]);
        let environment = child_environment(parent.clone().into_iter(), &[], &[], &BTreeMap::new());
        assert_eq!(environment, parent);
    }
}
