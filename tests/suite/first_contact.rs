//! What someone coming from `claude -p` types first, and the small things a newcomer trips on:
//! each mistake ends with a short message saying what to type instead, and the documented exit
//! code (SPEC §3.5).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{Home, code, stderr, stdout};

/// Assert that `output` exited with `exit` and that its stderr holds every one of `texts`.
fn exits_saying(output: &Output, exit: i32, texts: &[&str]) {
    let said = stderr(output);
    assert_eq!(code(output), exit, "{said}");
    for text in texts {
        assert!(said.contains(text), "wanted {text:?} in:\n{said}");
    }
}

/// The quick start's cassette: a replayed turn, no key.
fn quickstart() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart.cassette.jsonl")
}

#[test]
fn a_bare_prompt_is_refused_with_the_run_command_to_type() {
    let home = Home::new();
    let output = home.run(&["fix the bug", "-m", "opus"]);
    exits_saying(&output, 2, &["type: pincer run \"fix the bug\" -m opus\n"]);
}

#[test]
fn a_one_word_prompt_is_quoted_as_given_and_keeps_the_global_flags_before_it() {
    let home = Home::new();
    let output = home.run(&["-C", ".", "hello"]);
    exits_saying(&output, 2, &["type: pincer -C . run \"hello\"\n"]);
}

#[test]
fn a_mistyped_subcommand_gets_did_you_mean_instead_of_a_prompt_suggestion() {
    let home = Home::new();
    let output = home.run(&["rnu", "hello"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let stderr = stderr(&output);
    assert!(stderr.contains("did you mean `run`?"), "{stderr}");
    assert!(!stderr.contains("pincer run"), "{stderr}");
}

#[test]
fn resume_with_only_a_prompt_suggests_last() {
    let home = Home::new();
    let output = home.run(&["resume", "now add tests"]);
    exits_saying(
        &output,
        2,
        &["type: pincer resume --last \"now add tests\"\n"],
    );
}

#[test]
fn resume_of_an_unknown_session_suggests_create() {
    let home = Home::new();
    let output = home.run(&["resume", "nightly", "what changed?"]);
    exits_saying(
        &output,
        2,
        &[
            "no session matches 'nightly'",
            "type: pincer resume --create nightly \"what changed?\"\n",
        ],
    );
}

#[test]
fn a_mistyped_model_gets_did_you_mean_from_every_providers_catalog() {
    let home = Home::new();
    for (typed, meant) in [
        ("sonet", "sonnet"),
        ("gpt5", "gpt-5"),
        ("gemini-2.5-flsh", "gemini-2.5-flash"),
    ] {
        for argv in [
            vec!["run", "-m", typed, "hello"],
            vec!["-p", "hello", "--model", typed],
        ] {
            let output = home.run(&argv);
            assert_eq!(code(&output), 2, "{argv:?}: {}", stderr(&output));
            assert!(
                stderr(&output).contains(&format!("hint: did you mean `{meant}`?\n")),
                "{argv:?}: {}",
                stderr(&output)
            );
        }
    }
}

#[test]
fn a_missing_key_without_a_terminal_points_to_auth_add_first() {
    let home = Home::new();
    let output = home.run(&["run", "-m", "anthropic/claude-sonnet-4-5", "hi"]);
    exits_saying(
        &output,
        3,
        &[
            "hint: store the key once (a cron or CI job does not see your shell's variables): \
             printf %s \"$KEY\" | pincer auth add anthropic; or set ANTHROPIC_API_KEY\n",
        ],
    );
    let output = home.run(&["run", "hi"]);
    exits_saying(
        &output,
        3,
        &["| pincer auth add PROVIDER; or set ANTHROPIC_API_KEY"],
    );
}

#[test]
fn a_heartbeat_without_heartbeat_md_says_so_and_with_one_does_not() {
    let home = Home::new();
    let cassette = quickstart();
    let heartbeat = |home: &Home| {
        home.pincer()
            .args(["run", "--heartbeat", "--replay-mode", "lenient", "--replay"])
            .arg(&cassette)
            .output()
    };
    let output = heartbeat(&home);
    exits_saying(&output, 0, &["--heartbeat: no HEARTBEAT.md in "]);
    std::fs::write(home.workspace.join("HEARTBEAT.md"), "- the backups ran\n").unwrap();
    let output = heartbeat(&home);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("HEARTBEAT.md"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_from_env_profile_whose_variable_is_unset_is_unusable_everywhere_with_the_same_reason() {
    let home = Home::new();
    home.add_profile_from_env("anthropic", "PINCER_TEST_UNSET_KEY");
    let reason = "environment variable PINCER_TEST_UNSET_KEY is not set";
    let list = home.run(&["auth", "list"]);
    assert_eq!(code(&list), 0, "{}", stderr(&list));
    assert!(
        stdout(&list).contains(&format!("unusable: {reason}")),
        "{}",
        stdout(&list)
    );
    let listed = home.run(&["auth", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["profiles"][0]["available"], false);
    assert_eq!(listed["profiles"][0]["unusable"], reason);
    let status = home.run(&["auth", "status"]);
    assert!(
        stdout(&status).contains(&format!("unusable:       {reason}")),
        "{}",
        stdout(&status)
    );
    let overall = home.run(&["status"]);
    assert!(
        stdout(&overall).contains(&format!("profile:anthropic:default unusable: {reason}")),
        "{}",
        stdout(&overall)
    );
    let test = home.run(&["auth", "test", "anthropic:default"]);
    assert_eq!(code(&test), 3, "{}", stderr(&test));
    let said = format!("{}{}", stdout(&test), stderr(&test));
    assert!(said.contains(reason), "{said}");
}

#[test]
fn an_answer_file_in_a_missing_directory_is_refused_before_the_model_is_called() {
    let home = Home::new();
    let cassette = quickstart();
    let target = home.workspace.join("missing/answer.txt");
    let output = home
        .pincer()
        .args(["run", "--replay-mode", "lenient", "--replay"])
        .arg(&cassette)
        .arg("-o")
        .arg(&target)
        .arg("hi")
        .output();
    exits_saying(
        &output,
        2,
        &[&format!(
            "cannot write the answer file (-o) '{}': No such file or directory",
            target.display()
        )],
    );
    assert!(output.stdout.is_empty(), "the turn ran");
    assert!(!home.sessions_dir().exists(), "a session was created");
}

#[test]
fn a_kept_run_leaves_no_lock_file_beside_its_session() {
    let home = Home::new();
    let output = home
        .pincer()
        .args(["run", "--replay-mode", "lenient", "--replay"])
        .arg(quickstart())
        .arg("hi")
        .output();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let names: Vec<String> = std::fs::read_dir(home.sessions_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|name| name.ends_with(".jsonl")),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|name| name.ends_with(".lock")),
        "{names:?}"
    );
    // The session's lock lives in the hidden lock directory instead (beside the index's build
    // lock, which is no session's).
    let locks: Vec<String> = std::fs::read_dir(home.sessions_dir().join(".locks"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "index.sqlite3.build.lock")
        .collect();
    assert!(
        locks.len() == 1 && locks[0].ends_with(".jsonl.lock"),
        "{locks:?}"
    );
}

#[test]
fn a_mistyped_config_key_gets_did_you_mean_in_the_file_and_in_an_override() {
    // Issue #47 item 9: `modle`, `base_ulr` and `-c modle=…` name the key they meant, as a
    // mistyped subcommand does, instead of listing every valid key.
    let home = Home::new();
    std::fs::write(home.home.join("config.toml"), "modle = \"anthropic/x\"\n").unwrap();
    let output = home.run(&["status"]);
    exits_saying(
        &output,
        2,
        &[
            "unknown key 'modle'",
            "(line 1)",
            "hint: did you mean `model`?\n",
        ],
    );
    assert!(
        !stderr(&output).contains("valid keys here"),
        "{}",
        stderr(&output)
    );

    std::fs::write(
        home.home.join("config.toml"),
        "[providers.anthropic]\nbase_ulr = \"http://127.0.0.1:1\"\n",
    )
    .unwrap();
    let output = home.run(&["status"]);
    exits_saying(
        &output,
        2,
        &[
            "unknown key 'base_ulr' in table [providers.anthropic]",
            "hint: did you mean `base_url`?\n",
        ],
    );

    std::fs::remove_file(home.home.join("config.toml")).unwrap();
    let output = home.run(&["-c", "modle=anthropic/x", "status"]);
    exits_saying(
        &output,
        2,
        &[
            "unknown key 'modle' in -c 'modle=anthropic/x'",
            "hint: did you mean `model`?\n",
        ],
    );
}

#[test]
fn a_usage_line_never_shows_a_flag_that_only_its_environment_variable_set() {
    // Issue #47 item 10: PINCER_HOME (set for every test run) made clap's usage line under a
    // conflict read `pincer resume --fork --home <DIR> <SESSION>`.
    let home = Home::new();
    let output = home.run(&["resume", "--fork", "--create", "x"]);
    exits_saying(
        &output,
        2,
        &[
            "the argument '--fork' cannot be used with '--create'",
            "Usage: pincer resume",
        ],
    );
    assert!(!stderr(&output).contains("--home"), "{}", stderr(&output));
    // Named on the command line, it is the user's own and may show.
    let home_arg = home.home.to_string_lossy().into_owned();
    let output = home.run(&["--home", &home_arg, "resume", "--fork", "--create", "x"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
}

#[test]
fn resume_last_with_a_session_names_the_session_as_the_conflict() {
    // Issue #47 item 10: clap said "'--last' cannot be used with '[PROMPT]'" for
    // `resume --last nosuch x`: the second word is a SESSION given with --last.
    let home = Home::new();
    let output = home.run(&["resume", "--last", "nosuch", "x"]);
    exits_saying(
        &output,
        2,
        &[
            "the argument '--last' cannot be used with '<SESSION>'",
            "give either --last or a SESSION",
        ],
    );
    assert!(
        !stderr(&output).contains("[PROMPT]'"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("--home"), "{}", stderr(&output));
}

#[test]
fn a_negative_number_for_a_flag_is_refused_by_the_flag_not_by_a_tip_to_pass_it_after_dashes() {
    // Issue #47 item 10: `--timeout -5` was told "to pass '-5' as a value, use '-- -5'",
    // which makes -5 the prompt.
    let home = Home::new();
    for (args, said) in [
        (
            &["run", "--timeout", "-5", "hi"][..],
            "invalid value '-5' for '--timeout <SECS>'",
        ),
        (
            &["run", "--max-turns", "-1", "hi"][..],
            "invalid value '-1' for '--max-turns <N>'",
        ),
        (
            &["sessions", "--limit", "-3"][..],
            "invalid value '-3' for '--limit <N>'",
        ),
    ] {
        let output = home.run(args);
        exits_saying(&output, 2, &[said]);
        assert!(!stderr(&output).contains("use '--"), "{}", stderr(&output));
    }
}

#[test]
fn an_answer_file_in_a_missing_directory_is_named_without_the_internal_probe_file() {
    // Issue #47 item 10: the error named `.pincer-probe-XXXXXX`, a file the user never saw.
    let home = Home::new();
    let missing = home.root.path().join("nosuch/answer.txt");
    let output = home.run(&["run", "-o", &missing.to_string_lossy(), "hi"]);
    exits_saying(
        &output,
        2,
        &[&format!(
            "cannot write the answer file (-o) '{}': No such file or directory",
            missing.display()
        )],
    );
    assert!(
        !stderr(&output).contains("pincer-probe"),
        "{}",
        stderr(&output)
    );
}
