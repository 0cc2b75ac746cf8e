//! The attack suite for the sandbox (SPEC §10): every way a path argument could reach outside
//! the workspace, a directory swapped for a symlink while `write` runs, Landlock around `exec`,
//! and what each mode allows.
//!
//! Each test builds `base/ws` (the workspace, the only root) next to `base/ws2`, a sibling whose
//! name shares the prefix and which plays "outside" for every escape attempt.

use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::confine::{LandlockSupport, landlock_support};
use super::sandbox::{Sandbox, SandboxMode};
use super::{ToolContext, ToolOutput, execute};

struct Setup {
    _base: tempfile::TempDir,
    context: ToolContext,
    workspace: PathBuf,
    outside: PathBuf,
}

impl Setup {
    fn new(mode: SandboxMode) -> Setup {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().canonicalize().unwrap();
        let workspace = root.join("ws");
        let outside = root.join("ws2");
        std::fs::create_dir(&workspace).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "outside secret\n").unwrap();
        let sandbox = Sandbox {
            mode,
            writable_roots: vec![workspace.clone()],
            added_dirs: Vec::new(),
            protected: vec![workspace.join(".git")],
            read_only_roots: Vec::new(),
            exec: super::sandbox::ExecSetup::default(),
            web: super::sandbox::WebAccess::default(),
        };
        Setup {
            _base: base,
            context: ToolContext {
                workspace: workspace.clone(),
                cancel: CancellationToken::new(),
                sandbox,
                trace: Default::default(),
            },
            workspace,
            outside,
        }
    }

    async fn call(&self, tool: &str, arguments: Value) -> ToolOutput {
        execute(tool, &arguments, &self.context).await
    }

    fn outside_entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn secret(&self) -> String {
        std::fs::read_to_string(self.outside.join("secret.txt")).unwrap()
    }
}

fn assert_refused(output: &ToolOutput, expected_start: &str) {
    assert!(output.is_error, "not refused: {}", output.text_content());
    assert!(
        output.text_content().starts_with(expected_start),
        "unexpected refusal: {}",
        output.text_content()
    );
}

fn outside_message(setup: &Setup, raw: &str, resolved: &Path) -> String {
    format!(
        "Path '{raw}' is outside the workspace ({}); allowed roots: {}",
        resolved.display(),
        setup.workspace.display()
    )
}

#[tokio::test]
async fn dot_dot_cannot_read_or_write_outside_the_workspace() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let read = setup
        .call("read", json!({"path": "../ws2/secret.txt"}))
        .await;
    assert!(read.is_error);
    assert_eq!(
        read.text_content(),
        outside_message(
            &setup,
            "../ws2/secret.txt",
            &setup.outside.join("secret.txt")
        )
    );
    let write = setup
        .call(
            "write",
            json!({"path": "sub/../../ws2/new.txt", "content": "x"}),
        )
        .await;
    assert_refused(
        &write,
        "Path 'sub/../../ws2/new.txt' is outside the workspace",
    );
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
}

#[tokio::test]
async fn absolute_paths_outside_are_refused_and_inside_ones_work() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let target = setup.outside.join("secret.txt");
    let raw = target.to_str().unwrap();
    assert_refused(
        &setup.call("read", json!({"path": raw})).await,
        &format!("Path '{raw}' is outside the workspace"),
    );
    assert_refused(
        &setup
            .call("write", json!({"path": raw, "content": "owned"}))
            .await,
        &format!("Path '{raw}' is outside the workspace"),
    );
    assert_eq!(setup.secret(), "outside secret\n");
    let inside = setup.workspace.join("in.txt");
    let output = setup
        .call(
            "write",
            json!({"path": inside.to_str().unwrap(), "content": "ok"}),
        )
        .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(std::fs::read_to_string(inside).unwrap(), "ok");
}

#[tokio::test]
async fn a_sibling_sharing_the_workspace_name_prefix_is_outside() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let sibling = format!("{}2/secret.txt", setup.workspace.display());
    assert_refused(
        &setup.call("read", json!({"path": sibling})).await,
        &format!("Path '{sibling}' is outside the workspace"),
    );
    assert_refused(
        &setup.call("ls", json!({"path": "../ws2"})).await,
        "Path '../ws2' is outside the workspace",
    );
    assert_refused(
        &setup
            .call("grep", json!({"pattern": "secret", "path": "../ws2"}))
            .await,
        "Path '../ws2' is outside the workspace",
    );
    assert_refused(
        &setup
            .call("find", json!({"pattern": "*", "path": "../ws2"}))
            .await,
        "Path '../ws2' is outside the workspace",
    );
}

#[tokio::test]
async fn a_symlinked_middle_directory_leading_outside_is_refused_for_every_file_tool() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink(&setup.outside, setup.workspace.join("link")).unwrap();
    assert_refused(
        &setup.call("read", json!({"path": "link/secret.txt"})).await,
        "Path 'link/secret.txt' is outside the workspace",
    );
    assert_refused(
        &setup
            .call("write", json!({"path": "link/new.txt", "content": "x"}))
            .await,
        "Path 'link/new.txt' is outside the workspace",
    );
    assert_refused(
        &setup
            .call(
                "edit",
                json!({"path": "link/secret.txt", "oldText": "outside", "newText": "owned"}),
            )
            .await,
        "Path 'link/secret.txt' is outside the workspace",
    );
    let patch = "*** Begin Patch\n*** Add File: fine.txt\n+ok\n*** Add File: link/new.txt\n+x\n*** End Patch\n";
    assert_refused(
        &setup.call("apply_patch", json!({"input": patch})).await,
        "Path 'link/new.txt' is outside the workspace",
    );
    // Refused before anything was written, including the harmless first file.
    assert!(!setup.workspace.join("fine.txt").exists());
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
    assert_eq!(setup.secret(), "outside secret\n");
}

#[tokio::test]
async fn find_and_grep_do_not_follow_a_link_out_of_the_workspace() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink(&setup.outside, setup.workspace.join("link")).unwrap();
    std::fs::write(setup.workspace.join("mine.txt"), "secret inside\n").unwrap();
    let found = setup.call("find", json!({"pattern": "*.txt"})).await;
    assert_eq!(found.text_content(), "mine.txt");
    let grepped = setup.call("grep", json!({"pattern": "secret"})).await;
    assert_eq!(grepped.text_content(), "mine.txt:1:secret inside");
}

#[tokio::test]
async fn a_final_symlink_is_never_written_through() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink(
        setup.outside.join("secret.txt"),
        setup.workspace.join("note.txt"),
    )
    .unwrap();
    assert_refused(
        &setup
            .call("write", json!({"path": "note.txt", "content": "owned"}))
            .await,
        "Path 'note.txt' is a symbolic link; files are not written through links.",
    );
    assert_refused(
        &setup
            .call(
                "edit",
                json!({"path": "note.txt", "oldText": "outside", "newText": "owned"}),
            )
            .await,
        "Path 'note.txt' is a symbolic link;",
    );
    assert_refused(
        &setup.call("read", json!({"path": "note.txt"})).await,
        "Path 'note.txt' is outside the workspace",
    );
    assert_eq!(setup.secret(), "outside secret\n");
}

#[tokio::test]
async fn a_symlink_to_a_file_inside_the_workspace_can_be_read_but_not_written_through() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    std::fs::write(setup.workspace.join("real.txt"), "inside\n").unwrap();
    symlink("real.txt", setup.workspace.join("alias.txt")).unwrap();
    let read = setup.call("read", json!({"path": "alias.txt"})).await;
    assert_eq!(read.text_content(), "inside\n");
    assert_refused(
        &setup
            .call("write", json!({"path": "alias.txt", "content": "x"}))
            .await,
        "Path 'alias.txt' is a symbolic link;",
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join("real.txt")).unwrap(),
        "inside\n"
    );
}

#[tokio::test]
async fn a_dangling_symlink_pointing_outside_creates_nothing_there() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink(
        setup.outside.join("planted.txt"),
        setup.workspace.join("dangling"),
    )
    .unwrap();
    assert_refused(
        &setup
            .call("write", json!({"path": "dangling", "content": "x"}))
            .await,
        "Path 'dangling' is a symbolic link;",
    );
    let patch = "*** Begin Patch\n*** Add File: dangling\n+x\n*** End Patch\n";
    assert_refused(
        &setup.call("apply_patch", json!({"input": patch})).await,
        "Path 'dangling' is a symbolic link;",
    );
    assert_refused(
        &setup.call("read", json!({"path": "dangling"})).await,
        "Path 'dangling' is a symbolic link whose target does not exist",
    );
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
}

#[tokio::test]
async fn a_dangling_symlink_inside_the_workspace_is_reported_as_such_on_read() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink("missing.txt", setup.workspace.join("broken")).unwrap();
    assert_refused(
        &setup.call("read", json!({"path": "broken"})).await,
        "Path 'broken' is a symbolic link whose target does not exist",
    );
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_during_writes_never_leaks_a_file_outside() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let sub = setup.workspace.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, workspace, outside) = (
            Arc::clone(&stop),
            setup.workspace.clone(),
            setup.outside.clone(),
        );
        std::thread::spawn(move || {
            let sub = workspace.join("sub");
            let mut swaps = 0_u64;
            while !stop.load(Ordering::Relaxed) {
                // A fresh parking name each time: the writer may recreate `sub` in between, and
                // no step may get stuck on what an earlier one left behind.
                let parked = workspace.join(format!("parked{swaps}"));
                if std::fs::rename(&sub, &parked).is_err() {
                    std::thread::yield_now();
                    continue;
                }
                if symlink(&outside, &sub).is_ok() {
                    swaps += 1;
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&sub);
                }
                let _ = std::fs::rename(&parked, &sub);
            }
            swaps
        })
    };
    let started = Instant::now();
    let (mut written, mut refused) = (0_u32, 0_u32);
    // At least a second, and on a loaded machine longer, until both outcomes have been seen.
    while started.elapsed() < Duration::from_secs(1)
        || ((written == 0 || refused == 0) && started.elapsed() < Duration::from_secs(15))
    {
        let output = setup
            .call(
                "write",
                json!({"path": format!("sub/file{}.txt", written + refused), "content": "race"}),
            )
            .await;
        if output.is_error {
            refused += 1;
        } else {
            written += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 10, "the swapper only managed {swaps} swaps");
    // Both outcomes happened, so the calls really raced the swaps.
    assert!(
        written > 0 && refused > 0,
        "{written} written, {refused} refused"
    );
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
}

#[tokio::test]
async fn writes_replace_the_file_atomically_keep_its_mode_and_leave_no_temporary() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let script = setup.workspace.join("run.sh");
    std::fs::write(&script, "old\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o754)).unwrap();
    let hard_link = setup.workspace.join("hard.sh");
    std::fs::hard_link(&script, &hard_link).unwrap();
    let output = setup
        .call("write", json!({"path": "run.sh", "content": "new\n"}))
        .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "new\n");
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o7777,
        0o754
    );
    // Replaced, not written through: the other name keeps the old inode and content.
    assert_eq!(std::fs::read_to_string(&hard_link).unwrap(), "old\n");
    let mut names: Vec<String> = std::fs::read_dir(&setup.workspace)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["hard.sh", "run.sh"]);
}

#[tokio::test]
async fn git_is_read_only_in_workspace_write() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    std::fs::create_dir(setup.workspace.join(".git")).unwrap();
    std::fs::write(setup.workspace.join(".git/config"), "[core]\n").unwrap();
    let expected = format!(
        "Path '.git/config' is inside {}, which is read-only in the workspace-write sandbox.",
        setup.workspace.join(".git").display()
    );
    let write = setup
        .call("write", json!({"path": ".git/config", "content": "x"}))
        .await;
    assert!(write.is_error);
    assert_eq!(write.text_content(), expected);
    assert_refused(
        &setup
            .call(
                "edit",
                json!({"path": ".git/config", "oldText": "core", "newText": "x"}),
            )
            .await,
        "Path '.git/config' is inside",
    );
    assert_refused(
        &setup
            .call(
                "write",
                json!({"path": "sub/../.git/hooks/pre-commit", "content": "x"}),
            )
            .await,
        "Path 'sub/../.git/hooks/pre-commit' is inside",
    );
    let read = setup.call("read", json!({"path": ".git/config"})).await;
    assert_eq!(read.text_content(), "[core]\n");
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join(".git/config")).unwrap(),
        "[core]\n"
    );
}

#[tokio::test]
async fn read_only_refuses_every_writing_tool_but_still_reads() {
    let setup = Setup::new(SandboxMode::ReadOnly);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    for (tool, arguments) in [
        ("write", json!({"path": "a.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "a.txt", "oldText": "alpha", "newText": "x"}),
        ),
        (
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"}),
        ),
    ] {
        let output = setup.call(tool, arguments).await;
        assert!(output.is_error);
        assert_eq!(
            output.text_content(),
            format!(
                "The {tool} tool is disabled: the sandbox is read-only, so no file may be \
                 created, changed or deleted."
            )
        );
    }
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join("a.txt")).unwrap(),
        "alpha\n"
    );
    let read = setup.call("read", json!({"path": "a.txt"})).await;
    assert_eq!(read.text_content(), "alpha\n");
    assert_refused(
        &setup
            .call("read", json!({"path": "../ws2/secret.txt"}))
            .await,
        "Path '../ws2/secret.txt' is outside the workspace",
    );
}

#[tokio::test]
async fn read_only_exec_is_refused_without_landlock_and_cannot_write_with_it() {
    let setup = Setup::new(SandboxMode::ReadOnly);
    let output = setup
        .call(
            "exec",
            json!({"command": "echo x > inside.txt; echo done > /dev/null; echo ran"}),
        )
        .await;
    match landlock_support() {
        LandlockSupport::NotSupported(reason) => {
            assert!(output.is_error);
            assert_eq!(
                output.text_content(),
                format!(
                    "exec is disabled: the sandbox is read-only and commands can only run under \
                     Landlock, which is not available here ({reason})."
                )
            );
        }
        _ => {
            assert!(!output.is_error, "{}", output.text_content());
            assert!(
                output.text_content().ends_with("ran\n"),
                "{}",
                output.text_content()
            );
            assert!(!setup.workspace.join("inside.txt").exists());
        }
    }
}

#[tokio::test]
async fn landlock_stops_exec_writing_outside_the_workspace() {
    let support = landlock_support();
    if let LandlockSupport::NotSupported(reason) = &support {
        eprintln!("skipped: Landlock is not available here: {reason}");
        return;
    }
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    let target = setup.outside.join("file");
    let output = setup
        .call(
            "exec",
            json!({"command": format!(
                "echo x > '{}'; echo y > inside.txt; echo z > /dev/null; cat inside.txt",
                target.display()
            )}),
        )
        .await;
    assert!(!target.exists(), "{}", output.text_content());
    assert!(
        output.text_content().contains("Permission denied"),
        "{}",
        output.text_content()
    );
    assert!(
        output.text_content().ends_with("y\n"),
        "{}",
        output.text_content()
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join("inside.txt")).unwrap(),
        "y\n"
    );
    // The restriction stayed with the command: this process can still write there.
    std::fs::write(&target, "pincer itself").unwrap();
    assert_eq!(setup.outside_entries(), ["file", "secret.txt"]);
}

#[tokio::test]
async fn exec_refuses_a_working_directory_outside_the_workspace() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    assert_refused(
        &setup
            .call("exec", json!({"command": "pwd", "workdir": "../ws2"}))
            .await,
        "Path '../ws2' is outside the workspace",
    );
}

#[tokio::test]
async fn danger_full_access_writes_outside_and_runs_commands_unconfined() {
    let setup = Setup::new(SandboxMode::DangerFullAccess);
    let target = setup.outside.join("free.txt");
    let output = setup
        .call(
            "write",
            json!({"path": target.to_str().unwrap(), "content": "free"}),
        )
        .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "free");
    let shell_target = setup.outside.join("shell.txt");
    let output = setup
        .call(
            "exec",
            json!({"command": format!("echo s > '{}'", shell_target.display())}),
        )
        .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert_eq!(std::fs::read_to_string(&shell_target).unwrap(), "s\n");
}

#[tokio::test]
async fn a_dangling_symlink_in_the_middle_of_a_path_is_not_replaced_by_a_new_directory() {
    let setup = Setup::new(SandboxMode::WorkspaceWrite);
    symlink(setup.outside.join("later"), setup.workspace.join("gone")).unwrap();
    let output = setup
        .call("write", json!({"path": "gone/x.txt", "content": "x"}))
        .await;
    assert!(output.is_error);
    assert_eq!(
        output.text_content(),
        "Could not write gone/x.txt: a path component is a symbolic link (dangling, or swapped \
         in while the call ran); links are not followed here"
    );
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
    assert!(
        std::fs::symlink_metadata(setup.workspace.join("gone"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// The workspace `base/ws` plus the added root `base/lib`, as `Sandbox::new` builds them, with
/// `base/ws2` outside both. Landlock only: the test binary cannot act as the namespace launcher.
fn two_roots(mode: SandboxMode) -> (Setup, PathBuf) {
    let mut setup = Setup::new(mode);
    let base = setup.workspace.parent().unwrap().to_path_buf();
    let added = base.join("lib");
    std::fs::create_dir(&added).unwrap();
    std::fs::write(added.join("lib.txt"), "library\n").unwrap();
    std::fs::create_dir(added.join(".git")).unwrap();
    std::fs::write(added.join(".git/config"), "[core]\n").unwrap();
    let own = pincer_base::paths::Paths::under_home(&base.join("home"));
    let mut sandbox = Sandbox::new(
        mode,
        &setup.workspace,
        std::slice::from_ref(&added),
        &own,
        None,
    );
    sandbox.exec.launcher = None;
    setup.context.sandbox = sandbox;
    (setup, added)
}

#[tokio::test]
async fn escapes_from_an_added_root_are_refused_like_escapes_from_the_workspace() {
    let (setup, added) = two_roots(SandboxMode::WorkspaceWrite);
    symlink(&setup.outside, added.join("link")).unwrap();
    let from_added = |relative: &str| added.join(relative).to_string_lossy().into_owned();
    for raw in [
        from_added("../ws2/secret.txt"),
        from_added("link/secret.txt"),
        format!("{}/../ws2/secret.txt", added.display()),
        "../ws2/secret.txt".to_owned(),
    ] {
        let read = setup.call("read", json!({"path": raw})).await;
        assert_refused(&read, &format!("Path '{raw}' is outside the workspace"));
        assert_eq!(read.refusal, Some(super::Refusal::Confinement));
        let write = setup
            .call("write", json!({"path": raw, "content": "owned"}))
            .await;
        assert_refused(&write, &format!("Path '{raw}' is outside the workspace"));
    }
    // A sibling sharing the added root's name prefix is outside it too.
    let sibling = format!("{}2/x.txt", added.display());
    assert_refused(
        &setup
            .call("write", json!({"path": sibling, "content": "x"}))
            .await,
        &format!("Path '{sibling}' is outside the workspace"),
    );
    assert_refused(
        &setup
            .call(
                "exec",
                json!({"command": "pwd", "workdir": from_added("link")}),
            )
            .await,
        "Path '",
    );
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
    assert_eq!(setup.secret(), "outside secret\n");
}

#[tokio::test]
async fn the_file_tools_work_in_both_roots_and_protect_git_in_the_added_one() {
    let (setup, added) = two_roots(SandboxMode::WorkspaceWrite);
    let in_added = |relative: &str| added.join(relative).to_string_lossy().into_owned();
    let written = setup
        .call(
            "write",
            json!({"path": in_added("src/new.rs"), "content": "fn added() {}\n"}),
        )
        .await;
    assert!(!written.is_error, "{}", written.text_content());
    let edited = setup
        .call(
            "edit",
            json!({"path": in_added("lib.txt"), "oldText": "library", "newText": "edited"}),
        )
        .await;
    assert!(!edited.is_error, "{}", edited.text_content());
    assert_eq!(
        std::fs::read_to_string(added.join("lib.txt")).unwrap(),
        "edited\n"
    );
    let local = setup
        .call(
            "write",
            json!({"path": "here.txt", "content": "workspace\n"}),
        )
        .await;
    assert!(!local.is_error, "{}", local.text_content());
    assert_eq!(
        setup
            .call("read", json!({"path": in_added("src/new.rs")}))
            .await
            .text_content(),
        "fn added() {}\n"
    );
    assert_eq!(
        setup
            .call("grep", json!({"pattern": "added", "path": in_added(".")}))
            .await
            .text_content(),
        "src/new.rs:1:fn added() {}"
    );
    assert_eq!(
        setup
            .call("find", json!({"pattern": "*.rs", "path": in_added(".")}))
            .await
            .text_content(),
        "src/new.rs"
    );
    let patch = format!(
        "*** Begin Patch\n*** Add File: {}\n+patched\n*** End Patch\n",
        in_added("patched.txt")
    );
    let patched = setup.call("apply_patch", json!({"input": patch})).await;
    assert!(!patched.is_error, "{}", patched.text_content());
    assert_eq!(
        std::fs::read_to_string(added.join("patched.txt")).unwrap(),
        "patched\n"
    );

    let protected = setup
        .call(
            "write",
            json!({"path": in_added(".git/config"), "content": "x"}),
        )
        .await;
    assert_eq!(protected.refusal, Some(super::Refusal::ProtectedPath));
    assert_eq!(
        protected.text_content(),
        format!(
            "Path '{}' is inside {}, which is read-only in the workspace-write sandbox.",
            in_added(".git/config"),
            added.join(".git").display()
        )
    );
    let hook = setup
        .call(
            "write",
            json!({"path": in_added("src/../.git/hooks/pre-commit"), "content": "x"}),
        )
        .await;
    assert_eq!(hook.refusal, Some(super::Refusal::ProtectedPath));
    for name in [".pincer/x", ".claude/settings.json", ".codex/config.toml"] {
        let output = setup
            .call("write", json!({"path": in_added(name), "content": "x"}))
            .await;
        assert_eq!(
            output.refusal,
            Some(super::Refusal::ProtectedPath),
            "{name}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(added.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!added.join(".git/hooks").exists());
}

#[tokio::test]
async fn exec_runs_in_an_added_root_and_landlock_lets_it_write_there_only() {
    let (setup, added) = two_roots(SandboxMode::WorkspaceWrite);
    let target = setup.outside.join("escape");
    let output = setup
        .call(
            "exec",
            json!({
                "command": format!(
                    "pwd; echo a > made-in-added.txt; echo w > '{}/made-in-workspace.txt'; \
                     echo x > '{}'; true",
                    setup.workspace.display(),
                    target.display()
                ),
                "workdir": added.to_str().unwrap(),
            }),
        )
        .await;
    assert!(!output.is_error, "{}", output.text_content());
    assert!(
        output
            .text_content()
            .starts_with(&format!("{}\n", added.display())),
        "{}",
        output.text_content()
    );
    assert_eq!(
        std::fs::read_to_string(added.join("made-in-added.txt")).unwrap(),
        "a\n"
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join("made-in-workspace.txt")).unwrap(),
        "w\n"
    );
    if let LandlockSupport::NotSupported(reason) = landlock_support() {
        eprintln!("skipped the Landlock half: Landlock is not available here: {reason}");
        return;
    }
    assert!(!target.exists(), "{}", output.text_content());
    assert_eq!(setup.outside_entries(), ["secret.txt"]);
}

#[tokio::test]
async fn read_only_reads_an_added_root_and_writes_nothing_there() {
    let (setup, added) = two_roots(SandboxMode::ReadOnly);
    let path = added.join("lib.txt").to_string_lossy().into_owned();
    assert_eq!(
        setup
            .call("read", json!({"path": path}))
            .await
            .text_content(),
        "library\n"
    );
    let write = setup
        .call("write", json!({"path": path, "content": "x"}))
        .await;
    assert_eq!(write.refusal, Some(super::Refusal::SandboxMode));
    assert_eq!(
        std::fs::read_to_string(added.join("lib.txt")).unwrap(),
        "library\n"
    );
}
