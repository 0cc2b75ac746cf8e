//! What someone coming from `claude -p` types first, and the small things a newcomer trips on:
//! each mistake ends with a short message saying what to type instead, and the documented exit
//! code (SPEC §3.5).

use crate::common::{Home, code, stderr};

#[test]
fn a_bare_prompt_is_refused_with_the_run_command_to_type() {
    let home = Home::new();
    let output = home.run(&["fix the bug", "-m", "opus"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("type: pincer run \"fix the bug\" -m opus\n"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_one_word_prompt_is_quoted_as_given_and_keeps_the_global_flags_before_it() {
    let home = Home::new();
    let output = home.run(&["-C", ".", "hello"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("type: pincer -C . run \"hello\"\n"),
        "{}",
        stderr(&output)
    );
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
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("type: pincer resume --last \"now add tests\"\n"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn resume_of_an_unknown_session_suggests_create() {
    let home = Home::new();
    let output = home.run(&["resume", "nightly", "what changed?"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no session matches 'nightly'"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("type: pincer resume --create nightly \"what changed?\"\n"),
        "{}",
        stderr(&output)
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
