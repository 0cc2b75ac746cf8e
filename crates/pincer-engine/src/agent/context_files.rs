//! Workspace context files (SPEC §6.2): the user's standing instructions and memory, read from
//! the workspace root and from the global `<config>/workspace/` directory and put into the system
//! prompt.
//!
//! Reading is tolerant: a missing file is simply absent, and an unreadable, non-UTF-8, oversized
//! or non-regular file is skipped with a warning instead of failing the run. Each file is capped
//! in characters (never bytes), keeping its head and tail around a marker line, as the seed does
//! (runtime reference §5.2).

use std::fmt::Write as _;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::consumed;

/// Workspace context files, in order (SPEC §6.2). `CLAUDE.md` stands in for a missing
/// `AGENTS.md` and `HEARTBEAT.md` is added on heartbeat runs; the prompt builder does both.
pub const DEFAULT_WORKSPACE_FILES: [&str; 6] = [
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "MEMORY.md",
];

/// Stands in for `AGENTS.md` when that is configured but missing.
const AGENTS_FILE: &str = "AGENTS.md";
const AGENTS_FALLBACK: &str = "CLAUDE.md";
/// Added on heartbeat runs.
pub const HEARTBEAT_FILE: &str = "HEARTBEAT.md";
/// Files larger than this are skipped unread: context files are meant to be short, and reading
/// an accidental log dump whole would only be thrown away by the cap.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Shares of the cap kept from the start and the end of a long file (the seed's 70 % / 20 %;
/// the rest is left for the marker).
const HEAD_PERCENT: usize = 70;
const TAIL_PERCENT: usize = 20;
/// How far a cut may move to land on a line boundary, as a share of the part it shortens.
const SNAP_PERCENT: usize = 10;
/// Prefix of the names of files from the global directory.
const GLOBAL_PREFIX: &str = "global/";

/// One file as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// The title shown in the prompt: `AGENTS.md`, or `global/AGENTS.md` for a global file.
    pub name: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// The content, trailing whitespace removed, capped.
    pub content: String,
    /// Length in characters before capping.
    pub original_chars: usize,
    /// Whether the cap cut it.
    pub truncated: bool,
}

/// A file that exists but was not used: why, and what to do (a consumed file refused).
pub type SkippedFile = consumed::Refusal;

/// What [`load`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedFiles {
    /// In prompt order: the workspace's files, then the global ones.
    pub files: Vec<ContextFile>,
    /// Files that exist but could not be used.
    pub skipped: Vec<SkippedFile>,
}

/// The names [`load`] may read at a workspace's top (`names`, `CLAUDE.md`, `HEARTBEAT.md`: the
/// plain relative ones), less those the user named `writable`: what the file tools refuse to
/// write and commands see read-only (issue #45). A name given in `writable` stays writable
/// however it is spelled (`./MEMORY.md`).
pub fn read_only_names(names: &[String], writable: &[String]) -> Vec<String> {
    let writable: Vec<PathBuf> = writable.iter().map(|name| normal(name)).collect();
    let mut read_only: Vec<String> = Vec::new();
    let fixed = [AGENTS_FALLBACK, HEARTBEAT_FILE].map(str::to_owned);
    for name in names.iter().chain(&fixed) {
        if is_plain_relative(name) && !writable.contains(&normal(name)) && !read_only.contains(name)
        {
            read_only.push(name.clone());
        }
    }
    read_only
}

/// `name`'s plain components, so that `./MEMORY.md` and `MEMORY.md` compare equal.
fn normal(name: &str) -> PathBuf {
    Path::new(name)
        .components()
        .filter(|component| matches!(component, Component::Normal(_)))
        .collect()
}

/// Read the configured files from `workspace`, then the same names from `global_dir`.
///
/// `names` is the configured list (`[workspace] files`); `CLAUDE.md` replaces a listed but
/// missing `AGENTS.md`, and `HEARTBEAT.md` is added on heartbeat runs. Names that are not plain
/// relative paths (absolute, or containing `..`) are skipped. Empty files are left out. A global
/// file that is the same file as a workspace one (the workspace *is* the global directory) is
/// not repeated. Each is opened as [`consumed::CONTEXT_FILES`]: a link out of its directory
/// or onto pincer's own directories `own` (issue #45: `AGENTS.md -> ../.ssh/id_ed25519`,
/// `MEMORY.md -> auth-profiles.json`), a FIFO or a device is skipped with the reason.
pub fn load(
    workspace: &Path,
    global_dir: &Path,
    own: &[&Path],
    names: &[String],
    heartbeat: bool,
    max_chars: usize,
    written: &consumed::Written,
) -> LoadedFiles {
    let mut loaded = LoadedFiles::default();
    let mut wanted: Vec<&str> = Vec::new();
    for name in names {
        if is_plain_relative(name) {
            wanted.push(name);
        } else {
            loaded.skipped.push(SkippedFile {
                path: workspace.join(name),
                reason: "not a plain file name inside the directory".to_owned(),
                fix: "name a file inside the workspace in [workspace] files".to_owned(),
            });
        }
    }
    if heartbeat && !wanted.contains(&HEARTBEAT_FILE) {
        wanted.push(HEARTBEAT_FILE);
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    for (dir, prefix) in [(workspace, ""), (global_dir, GLOBAL_PREFIX)] {
        for name in &wanted {
            let mut chosen = *name;
            let mut path = dir.join(name);
            if *name == AGENTS_FILE && !path.exists() {
                chosen = AGENTS_FALLBACK;
                path = dir.join(AGENTS_FALLBACK);
            }
            if !path.exists() {
                continue;
            }
            let identity = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if seen.contains(&identity) {
                continue;
            }
            seen.push(identity);
            match read_text(dir, Path::new(chosen), own, written) {
                Ok(text) => {
                    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).trim_end();
                    if text.trim_start().is_empty() {
                        continue;
                    }
                    let (content, truncated) = cap(text, max_chars);
                    loaded.files.push(ContextFile {
                        name: format!("{prefix}{chosen}"),
                        path,
                        content,
                        original_chars: text.chars().count(),
                        truncated,
                    });
                }
                Err(Unreadable::Missing) => {}
                Err(Unreadable::Refused(refused)) => loaded.skipped.push(refused.of(&path)),
                Err(reason) => loaded.skipped.push(SkippedFile {
                    path,
                    reason: reason.to_string(),
                    fix: "save it as UTF-8 text".to_owned(),
                }),
            }
        }
    }
    loaded
}

/// Only `Normal` components: keeps a configured name inside its directory.
fn is_plain_relative(name: &str) -> bool {
    let path = Path::new(name);
    !name.is_empty()
        && path
            .components()
            .all(|component| matches!(component, Component::Normal(_)))
}

/// Why a context file was skipped.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error(transparent)]
    Refused(#[from] consumed::Refused),
    #[error("not valid UTF-8")]
    NotUtf8,
    /// Gone since it was looked at: not a warning.
    #[error("missing")]
    Missing,
}

/// Read `name` under `dir`, a regular file of at most [`MAX_FILE_BYTES`] inside `dir` and
/// outside pincer's own directories, as UTF-8.
fn read_text(
    dir: &Path,
    name: &Path,
    own: &[&Path],
    written: &consumed::Written,
) -> Result<String, Unreadable> {
    let bytes = consumed::read(
        &consumed::CONTEXT_FILES,
        dir,
        name,
        own,
        MAX_FILE_BYTES,
        written,
    )?
    .ok_or(Unreadable::Missing)?;
    String::from_utf8(bytes).map_err(|_| Unreadable::NotUtf8)
}

/// Cap `content` at `max_chars` characters: when longer, keep about 70 % from the start and 20 %
/// from the end, each cut moved to a line boundary when one is near, with a marker line between
/// them saying how many characters and which lines were cut. Returns the text and whether it was
/// cut. The marker comes on top of the kept parts, so a capped text can exceed `max_chars` by the
/// marker's length when the cap is tiny.
pub fn cap(content: &str, max_chars: usize) -> (String, bool) {
    let total_chars = content.chars().count();
    if total_chars <= max_chars {
        return (content.to_owned(), false);
    }
    // Byte offset of every char, plus the end, so char counts convert to slice positions.
    let offsets: Vec<usize> = content
        .char_indices()
        .map(|(offset, _)| offset)
        .chain(std::iter::once(content.len()))
        .collect();
    let head_chars = max_chars * HEAD_PERCENT / 100;
    let tail_chars = max_chars * TAIL_PERCENT / 100;
    let mut head_end = offsets[head_chars];
    let mut tail_start = offsets[total_chars - tail_chars];

    // End the head after a newline and start the tail after one, if that shortens each part by
    // little; the marker then sits between whole lines.
    let head_window = offsets[head_chars - head_chars * SNAP_PERCENT / 100];
    if let Some(newline) = content[head_window..head_end].rfind('\n') {
        head_end = head_window + newline + 1;
    }
    let tail_window = offsets[total_chars - tail_chars + tail_chars * SNAP_PERCENT / 100];
    if tail_start > 0
        && !content[..tail_start].ends_with('\n')
        && let Some(newline) = content[tail_start..tail_window].find('\n')
    {
        tail_start += newline + 1;
    }

    let head = &content[..head_end];
    let tail = &content[tail_start..];
    let cut = &content[head_end..tail_start];
    let cut_chars = cut.chars().count();
    let first_line = head.matches('\n').count() + 1;
    let last_line = first_line + cut.trim_end_matches('\n').matches('\n').count();
    let mut capped = String::with_capacity(head.len() + tail.len() + 120);
    capped.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        capped.push('\n');
    }
    let _ = write!(
        capped,
        "[… {cut_chars} of {total_chars} characters cut here ({}); read the file for the full text …]",
        if first_line == last_line {
            format!("in line {first_line}")
        } else {
            format!("lines {first_line}–{last_line}")
        }
    );
    if !tail.is_empty() {
        capped.push('\n');
        capped.push_str(tail);
    }
    (capped, true)
}

#[cfg(test)]
mod tests {
    /// [`load`] with no file recorded as written by a run.
    fn load_unrecorded(
        workspace: &Path,
        global_dir: &Path,
        own: &[&Path],
        names: &[String],
        heartbeat: bool,
        max_chars: usize,
    ) -> LoadedFiles {
        load(
            workspace,
            global_dir,
            own,
            names,
            heartbeat,
            max_chars,
            &consumed::Written::default(),
        )
    }

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    fn defaults() -> Vec<String> {
        names(&DEFAULT_WORKSPACE_FILES)
    }

    fn listed(loaded: &LoadedFiles) -> Vec<&str> {
        loaded.files.iter().map(|file| file.name.as_str()).collect()
    }

    #[test]
    fn short_content_is_kept_whole() {
        assert_eq!(cap("abc", 3), ("abc".to_owned(), false));
        assert_eq!(cap("", 0), (String::new(), false));
    }

    #[test]
    fn long_content_keeps_head_and_tail_around_a_marker() {
        let content = "a".repeat(700) + &"b".repeat(300) + &"c".repeat(200);
        let (capped, truncated) = cap(&content, 1000);
        assert!(truncated);
        let expected = format!(
            "{}\n[… 300 of 1200 characters cut here (in line 1); read the file for the full text …]\n{}",
            "a".repeat(700),
            "c".repeat(200)
        );
        assert_eq!(capped, expected);
    }

    #[test]
    fn the_cap_counts_characters_and_never_splits_one() {
        let content = "é".repeat(100);
        let (capped, truncated) = cap(&content, 10);
        assert!(truncated);
        assert!(capped.starts_with(&format!("{}\n[… 91 of 100 characters", "é".repeat(7))));
        assert!(capped.ends_with(&format!("…]\n{}", "é".repeat(2))));
    }

    #[test]
    fn cuts_move_to_nearby_line_boundaries_and_the_marker_names_the_lines() {
        // 20 lines of 99 characters plus a newline: 2,000 characters.
        let content: String = (1..=20)
            .map(|line| format!("{line:02}{}\n", "x".repeat(97)))
            .collect();
        let content = content.trim_end();
        let (capped, truncated) = cap(content, 1000);
        assert!(truncated);
        let lines: Vec<&str> = capped.lines().collect();
        // Head: 700 chars → exactly 7 whole lines; tail: 200 chars → moved to 2 whole lines.
        assert!(lines[6].starts_with("07x"));
        assert_eq!(
            lines[7],
            "[… 1100 of 1999 characters cut here (lines 8–18); read the file for the full text …]"
        );
        assert!(lines[8].starts_with("19x"));
        assert_eq!(lines.len(), 10);
    }

    #[test]
    fn a_zero_cap_leaves_only_the_marker() {
        assert_eq!(
            cap("one\ntwo", 0),
            (
                "[… 7 of 7 characters cut here (lines 1–2); read the file for the full text …]"
                    .to_owned(),
                true
            )
        );
    }

    #[test]
    fn files_are_read_in_the_configured_order_then_the_global_ones() {
        let workspace = tempfile::tempdir().unwrap();
        let global = tempfile::tempdir().unwrap();
        for name in ["MEMORY.md", "SOUL.md", "AGENTS.md", "NOTES.md"] {
            fs::write(workspace.path().join(name), format!("{name} body\n\n")).unwrap();
        }
        fs::write(global.path().join("USER.md"), "global user").unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        assert_eq!(
            listed(&loaded),
            vec!["AGENTS.md", "SOUL.md", "MEMORY.md", "global/USER.md"]
        );
        assert_eq!(loaded.files[0].content, "AGENTS.md body");
        assert_eq!(loaded.files[0].path, workspace.path().join("AGENTS.md"));
        assert_eq!(loaded.files[0].original_chars, 14);
        assert_eq!(loaded.files[3].content, "global user");
        assert!(loaded.skipped.is_empty());
    }

    #[test]
    fn claude_md_stands_in_for_a_missing_agents_md() {
        let workspace = tempfile::tempdir().unwrap();
        let global = tempfile::tempdir().unwrap();
        fs::write(workspace.path().join("CLAUDE.md"), "claude rules").unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        assert_eq!(listed(&loaded), vec!["CLAUDE.md"]);

        // Not when AGENTS.md exists, and not when it is not configured.
        fs::write(workspace.path().join("AGENTS.md"), "agents rules").unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        assert_eq!(listed(&loaded), vec!["AGENTS.md"]);
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &names(&["SOUL.md"]),
            false,
            100,
        );
        assert!(loaded.files.is_empty());
    }

    #[test]
    fn heartbeat_md_is_read_only_on_heartbeat_runs() {
        let workspace = tempfile::tempdir().unwrap();
        let global = tempfile::tempdir().unwrap();
        fs::write(workspace.path().join("HEARTBEAT.md"), "- check the backups").unwrap();
        fs::write(workspace.path().join("USER.md"), "Ada").unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        assert_eq!(listed(&loaded), vec!["USER.md"]);
        let loaded = load_unrecorded(workspace.path(), global.path(), &[], &defaults(), true, 100);
        assert_eq!(listed(&loaded), vec!["USER.md", "HEARTBEAT.md"]);
    }

    #[test]
    fn long_files_are_capped_and_report_their_original_length() {
        let workspace = tempfile::tempdir().unwrap();
        let global = tempfile::tempdir().unwrap();
        fs::write(workspace.path().join("MEMORY.md"), "m".repeat(250)).unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        let memory = &loaded.files[0];
        assert!(memory.truncated);
        assert_eq!(memory.original_chars, 250);
        assert!(memory.content.starts_with(&"m".repeat(70)));
        assert!(memory.content.contains("[… 160 of 250 characters cut here"));
    }

    #[test]
    fn empty_non_utf8_and_odd_entries_are_left_out_with_reasons_for_the_broken_ones() {
        let workspace = tempfile::tempdir().unwrap();
        let global = tempfile::tempdir().unwrap();
        fs::write(workspace.path().join("AGENTS.md"), " \n\n").unwrap();
        fs::write(workspace.path().join("SOUL.md"), [0xff, 0xfe, 0x41]).unwrap();
        fs::create_dir(workspace.path().join("TOOLS.md")).unwrap();
        fs::write(workspace.path().join("USER.md"), "\u{feff}with a BOM").unwrap();
        let configured = names(&["AGENTS.md", "SOUL.md", "TOOLS.md", "USER.md", "../x.md"]);
        let loaded = load_unrecorded(
            workspace.path(),
            global.path(),
            &[],
            &configured,
            false,
            100,
        );
        assert_eq!(listed(&loaded), vec!["USER.md"]);
        assert_eq!(loaded.files[0].content, "with a BOM");
        let reasons: Vec<(PathBuf, &str)> = loaded
            .skipped
            .iter()
            .map(|skipped| (skipped.path.clone(), skipped.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            vec![
                (
                    workspace.path().join("../x.md"),
                    "not a plain file name inside the directory"
                ),
                (workspace.path().join("SOUL.md"), "not valid UTF-8"),
                (
                    workspace.path().join("TOOLS.md"),
                    "it is a directory, not a regular file"
                ),
            ]
        );
    }

    #[test]
    fn a_global_directory_that_is_the_workspace_does_not_repeat_files() {
        let workspace = tempfile::tempdir().unwrap();
        fs::write(workspace.path().join("SOUL.md"), "calm").unwrap();
        let loaded = load_unrecorded(
            workspace.path(),
            workspace.path(),
            &[],
            &defaults(),
            false,
            100,
        );
        assert_eq!(listed(&loaded), vec!["SOUL.md"]);
    }
}
