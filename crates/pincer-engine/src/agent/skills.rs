//! Skills (SPEC §6.5): packages in the open Agent Skills format — a directory whose `SKILL.md`
//! starts with YAML front matter (`name`, `description`, optional `license`, `compatibility`,
//! `allowed-tools`, `metadata`) — found on disk and listed in the system prompt by name,
//! description and path. The bodies are never read here: the model reads the one it needs with
//! its `read` tool (progressive disclosure).
//!
//! Places, in order, later names shadowing earlier ones: `<config>/skills/`, the workspace's
//! `.pincer/skills/` and `.agents/skills/`, the configured `skills.paths`, then each `--skill`.
//! A place is a directory of skill directories; a configured path or `--skill` may also be one
//! skill directory or one `SKILL.md` file. Nothing is walked deeper than one level, so a
//! workspace without skill directories costs one failed `open` per default place.
//!
//! Loading is tolerant: a skill without a `name` or `description`, with front matter that is not
//! YAML, or that cannot be read is skipped with a reason naming the file; a name that breaks the
//! format's rules is kept with a warning (it is only a label in the prompt); names and
//! descriptions are capped at the format's 64 and 1,024 characters. Nothing here prints:
//! `commands/` turns the problems into warnings.
//!
//! `allowed-tools` is reported, never obeyed: a file in a repository must not widen pincer's
//! tool policy.

use std::collections::HashSet;
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yaml_rust2::parser::Parser;
use yaml_rust2::{Event, ScanError, Yaml, YamlLoader};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The longest name the format allows, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest description the format allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// How much of a `SKILL.md` is read to find its front matter: only the header is needed, and a
/// header longer than this is not one.
const MAX_HEADER_BYTES: u64 = 64 * 1024;
/// The default places inside the workspace, in order.
/// The workspace's places, each read as the registry of consumed files declares it (issue #45):
/// a `SKILL.md` (or skill directory) linking out of the workspace is refused, not followed.
const WORKSPACE_PLACES: [(&str, &crate::consumed::Consumed); 2] = [
    (".pincer/skills", &crate::consumed::PINCER),
    (".agents/skills", &crate::consumed::AGENTS_SKILLS),
];

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SkillSource {
    /// `<config>/skills/`.
    Global,
    /// The workspace's `.pincer/skills/` or `.agents/skills/`.
    Workspace,
    /// A `skills.paths` entry of the configuration.
    Config,
    /// A `--skill` argument.
    Flag,
}

impl SkillSource {
    /// The name the JSON and the text views give it.
    pub fn as_str(self) -> &'static str {
        match self {
            SkillSource::Global => "global",
            SkillSource::Workspace => "workspace",
            SkillSource::Config => "config",
            SkillSource::Flag => "flag",
        }
    }
}

/// One skill, as listed in the prompt and reported by `--dry-run` and `status`: its front
/// matter's fields, then where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// What its `SKILL.md` says about it.
    #[serde(flatten)]
    pub front_matter: FrontMatter,
    /// The `SKILL.md`, absolute and with symbolic links resolved.
    pub path: PathBuf,
    /// Where it was found.
    pub source: SkillSource,
}

impl Skill {
    /// The name the prompt lists it by.
    pub fn name(&self) -> &str {
        &self.front_matter.name
    }

    /// Whether only a person may start it (`disable-model-invocation: true`).
    pub fn is_manual(&self) -> bool {
        self.front_matter.disable_model_invocation
    }
}

/// A skill that a later one of the same name replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shadowed {
    /// The name both share.
    pub name: String,
    /// The replaced skill's `SKILL.md`.
    pub path: PathBuf,
    /// Where the replaced skill was found.
    pub source: SkillSource,
    /// The `SKILL.md` that replaced it.
    pub shadowed_by: PathBuf,
}

/// A file or place with a problem, and the problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// The `SKILL.md` or the configured place.
    pub path: PathBuf,
    /// A short sentence.
    pub message: String,
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discovery {
    /// Whether the default places and `skills.paths` were searched (`--no-skills` and
    /// `skills.enabled = false` turn that off; `--skill` paths load either way).
    pub enabled: bool,
    /// The skills in effect, sorted by name (the prompt lists them in this order).
    pub loaded: Vec<Skill>,
    /// Skills replaced by a later one of the same name, in the order found.
    pub shadowed: Vec<Shadowed>,
    /// Skills not loaded, and why.
    pub skipped: Vec<Problem>,
    /// The workspace's `SKILL.md` files the registry of consumed files refused (a link out of
    /// the workspace, a file a run wrote): reported with what to do, not in `skipped`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<crate::consumed::Refusal>,
    /// Loaded skills with something to fix (a name against the format's rules, a cap applied).
    pub warnings: Vec<Problem>,
}

impl Discovery {
    /// The skills the prompt lists: every loaded one except those only a person may start.
    pub fn listed(&self) -> impl Iterator<Item = &Skill> {
        self.loaded.iter().filter(|skill| !skill.is_manual())
    }
}

/// Where to look.
#[derive(Debug, Clone)]
pub struct Places<'a> {
    /// pincer's config directory (`<config>/skills/` is searched).
    pub config_dir: &'a Path,
    /// The workspace (its `.pincer/skills/` and `.agents/skills/` are searched).
    pub workspace: &'a Path,
    /// Search the default places and `config_paths`.
    pub enabled: bool,
    /// `skills.paths`: absolute, or relative to the workspace.
    pub config_paths: &'a [PathBuf],
    /// `--skill` paths, absolute.
    pub flag_paths: &'a [PathBuf],
    /// The consumed files runs wrote (a workspace `SKILL.md` a run wrote is refused).
    pub written: &'a crate::consumed::Written,
}

/// Find the skills of `places` (see the module comment for the order and the rules).
pub fn discover(places: &Places<'_>) -> Discovery {
    let mut found = Found {
        discovery: Discovery::default(),
        seen: HashSet::new(),
        workspace: places.workspace.to_path_buf(),
        declared: None,
        written: places.written,
    };
    if places.enabled {
        found.directory_of_skills(&places.config_dir.join("skills"), SkillSource::Global);
        for (place, declared) in WORKSPACE_PLACES {
            found.declared = Some(declared);
            found.directory_of_skills(&places.workspace.join(place), SkillSource::Workspace);
            found.declared = None;
        }
        for path in places.config_paths {
            found.explicit(&places.workspace.join(path), SkillSource::Config);
        }
    }
    for path in places.flag_paths {
        found.explicit(path, SkillSource::Flag);
    }
    let mut discovery = found.discovery;
    discovery.enabled = places.enabled;
    discovery
        .loaded
        .sort_by(|left, right| left.name().cmp(right.name()));
    discovery
}

/// Discovery in progress.
struct Found<'a> {
    discovery: Discovery,
    /// Canonical `SKILL.md` paths already loaded: a skill reached twice is not its own shadow.
    seen: HashSet<PathBuf>,
    /// The workspace, the root of the places read as [`Found::declared`].
    workspace: PathBuf,
    /// While a workspace place is searched: its declaration, so that each `SKILL.md` in it is
    /// opened through [`crate::consumed::open`].
    declared: Option<&'static crate::consumed::Consumed>,
    /// What runs wrote.
    written: &'a crate::consumed::Written,
}

impl Found<'_> {
    /// A default place: each subdirectory holding a `SKILL.md` is a skill. A missing place is
    /// not a problem. Returns how many `SKILL.md` files it found.
    fn directory_of_skills(&mut self, directory: &Path, source: SkillSource) -> usize {
        let Ok(entries) = fs::read_dir(directory) else {
            return 0;
        };
        let mut names: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name())
            .filter(|name| !name.to_string_lossy().starts_with('.'))
            .collect();
        // Directory order is the file system's; sorting makes shadowing inside one place stable.
        names.sort();
        let mut found = 0;
        for name in names {
            let file = directory.join(&name).join(SKILL_FILE);
            if fs::metadata(&file).is_ok_and(|metadata| metadata.is_file()) {
                self.load(&file, source);
                found += 1;
            }
        }
        found
    }

    /// A configured or `--skill` path: a `SKILL.md` file, a skill directory, or a directory of
    /// skill directories. A missing path is reported.
    fn explicit(&mut self, path: &Path, source: SkillSource) {
        match fs::metadata(path) {
            Err(error) => self.discovery.skipped.push(Problem {
                path: path.to_path_buf(),
                message: format!("the skill path cannot be used: {error}"),
            }),
            Ok(metadata) if metadata.is_file() => self.load(path, source),
            Ok(metadata) if metadata.is_dir() => {
                let file = path.join(SKILL_FILE);
                if fs::metadata(&file).is_ok_and(|metadata| metadata.is_file()) {
                    self.load(&file, source);
                } else if self.directory_of_skills(path, source) == 0 {
                    self.discovery.skipped.push(Problem {
                        path: path.to_path_buf(),
                        message: format!(
                            "no {SKILL_FILE} in the directory or in its subdirectories"
                        ),
                    });
                }
            }
            Ok(_) => self.discovery.skipped.push(Problem {
                path: path.to_path_buf(),
                message: "not a file or a directory".to_owned(),
            }),
        }
    }

    fn load(&mut self, file: &Path, source: SkillSource) {
        let opened = match self.declared {
            Some(declared) => match self.open_consumed(declared, file) {
                Some(opened) => Some(opened),
                None => return,
            },
            None => None,
        };
        let path = fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        if self.seen.contains(&path) {
            return;
        }
        let header = match opened {
            Some(opened) => header_of(opened),
            None => read_header(&path),
        };
        let (front_matter, warnings) = match header.and_then(|text| parse(&text)) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.discovery.skipped.push(Problem {
                    path,
                    message: error.to_string(),
                });
                return;
            }
        };
        self.seen.insert(path.clone());
        for message in warnings {
            self.discovery.warnings.push(Problem {
                path: path.clone(),
                message,
            });
        }
        let skill = Skill {
            front_matter,
            path,
            source,
        };
        let loaded = &mut self.discovery.loaded;
        match loaded
            .iter_mut()
            .find(|earlier| earlier.name() == skill.name())
        {
            Some(earlier) => {
                let shadowed_by = skill.path.clone();
                let earlier = std::mem::replace(earlier, skill);
                self.discovery.shadowed.push(Shadowed {
                    name: earlier.front_matter.name,
                    path: earlier.path,
                    source: earlier.source,
                    shadowed_by,
                });
            }
            None => loaded.push(skill),
        }
    }
}

impl Found<'_> {
    /// Open the workspace's `file` as `declared`: `None` (with the refusal recorded) when the
    /// registry refuses it or it is gone.
    fn open_consumed(
        &mut self,
        declared: &'static crate::consumed::Consumed,
        file: &Path,
    ) -> Option<fs::File> {
        let name = file.strip_prefix(&self.workspace).unwrap_or(file);
        match crate::consumed::open(declared, &self.workspace, name, &[], u64::MAX, self.written) {
            Ok(opened) => opened,
            Err(refused) => {
                self.discovery.refused.push(refused.of(file));
                None
            }
        }
    }
}

/// Why a `SKILL.md` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("cannot be read: {0}")]
    Read(#[source] std::io::Error),
    #[error("not a regular file")]
    NotAFile,
    #[error("not valid UTF-8")]
    NotUtf8,
    #[error("no front matter: the file must start with a line `---`")]
    NoFrontMatter,
    #[error(
        "the front matter has no closing line `---` (within the first {} KiB)",
        MAX_HEADER_BYTES / 1024
    )]
    Unclosed,
    #[error(
        "the front matter uses a YAML alias (*name), which skills do not need and pincer does \
         not expand"
    )]
    Alias,
    /// The YAML parser's complaint, with its place and a hint.
    #[error("{0}")]
    Yaml(String),
    #[error("the front matter is not a mapping of fields")]
    NotAMapping,
    /// A required field, by name.
    #[error("the front matter has no `{0}`")]
    Missing(&'static str),
}

/// The start of a regular file, as text: at most [`MAX_HEADER_BYTES`], a character cut at the
/// end dropped.
fn read_header(path: &Path) -> Result<String, SkillError> {
    // A FIFO named SKILL.md would block the run: check the type before opening.
    let metadata = fs::metadata(path).map_err(SkillError::Read)?;
    if !metadata.is_file() {
        return Err(SkillError::NotAFile);
    }
    header_of(fs::File::open(path).map_err(SkillError::Read)?)
}

/// [`read_header`] of an open file.
fn header_of(file: fs::File) -> Result<String, SkillError> {
    let mut bytes = Vec::new();
    file.take(MAX_HEADER_BYTES)
        .read_to_end(&mut bytes)
        .map_err(SkillError::Read)?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => {
            let utf8 = error.utf8_error();
            if utf8.error_len().is_some() {
                return Err(SkillError::NotUtf8);
            }
            let mut bytes = error.into_bytes();
            bytes.truncate(utf8.valid_up_to());
            String::from_utf8(bytes).map_err(|_| SkillError::NotUtf8)
        }
    }
}

/// A `SKILL.md`'s front matter, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontMatter {
    /// `name`, on one line, at most [`MAX_NAME_CHARS`].
    pub name: String,
    /// `description`, on one line, at most [`MAX_DESCRIPTION_CHARS`].
    pub description: String,
    /// `license`, when given.
    pub license: Option<String>,
    /// `compatibility`, when given.
    pub compatibility: Option<String>,
    /// `allowed-tools`, split into entries. Reported only: never a grant.
    pub allowed_tools: Vec<String>,
    /// `metadata`, as JSON.
    pub metadata: Option<Value>,
    /// `disable-model-invocation: true` (Claude Code's field for skills only a person starts):
    /// loaded and reported, but not listed in the prompt.
    pub disable_model_invocation: bool,
}

/// Parse the front matter at the start of `text` (a `SKILL.md`'s beginning): the fields, and
/// what to fix in a header that is still usable. `Err` says why the skill cannot be used.
pub fn parse(text: &str) -> Result<(FrontMatter, Vec<String>), SkillError> {
    let yaml = front_matter(text)?;
    // An alias is copied wherever it is used, so a few lines of nested aliases expand to
    // gigabytes; skill headers have no use for them.
    let mut parser = Parser::new_from_str(yaml);
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => break,
            Ok((Event::Alias(_), _)) => {
                return Err(SkillError::Alias);
            }
            Ok(_) => {}
            Err(error) => return Err(SkillError::Yaml(yaml_error(&error))),
        }
    }
    let documents =
        YamlLoader::load_from_str(yaml).map_err(|error| SkillError::Yaml(yaml_error(&error)))?;
    let Some(Yaml::Hash(fields)) = documents.into_iter().next() else {
        return Err(SkillError::NotAMapping);
    };
    let field = |key: &str| fields.get(&Yaml::String(key.to_owned()));
    let text_of = |key: &str| field(key).and_then(scalar_text).map(|text| one_line(&text));
    let mut warnings = Vec::new();

    let name = text_of("name")
        .filter(|name| !name.is_empty())
        .ok_or(SkillError::Missing("name"))?;
    let description = text_of("description")
        .filter(|description| !description.is_empty())
        .ok_or(SkillError::Missing("description"))?;
    let name = capped(name, MAX_NAME_CHARS, "name", &mut warnings);
    if !follows_naming_rules(&name) {
        warnings.push(format!(
            "the name '{name}' breaks the Agent Skills rules (lowercase letters, digits and \
             single hyphens, not at either end); it is used as written"
        ));
    }
    let description = capped(
        description,
        MAX_DESCRIPTION_CHARS,
        "description",
        &mut warnings,
    );
    let allowed_tools = match field("allowed-tools") {
        Some(Yaml::Array(items)) => items
            .iter()
            .filter_map(scalar_text)
            .flat_map(|item| split_tools(&item))
            .collect(),
        Some(value) => scalar_text(value)
            .map(|text| split_tools(&text))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let front_matter = FrontMatter {
        name,
        description,
        license: text_of("license").filter(|text| !text.is_empty()),
        compatibility: text_of("compatibility").filter(|text| !text.is_empty()),
        allowed_tools,
        metadata: field("metadata").map(to_json),
        disable_model_invocation: matches!(
            field("disable-model-invocation"),
            Some(Yaml::Boolean(true))
        ),
    };
    Ok((front_matter, warnings))
}

/// The YAML between a first line `---` and the next line `---` (or `...`).
fn front_matter(text: &str) -> Result<&str, SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err(SkillError::NoFrontMatter);
    }
    let start = first.len();
    let mut end = start;
    for line in lines {
        if matches!(line.trim_end(), "---" | "...") {
            return Ok(&text[start..end]);
        }
        end += line.len();
    }
    Err(SkillError::Unclosed)
}

/// A YAML error with the line counted in the file (the front matter starts on line 2).
fn yaml_error(error: &ScanError) -> String {
    let marker = error.marker();
    // The usual mistake: an unquoted description like `Use when: …`.
    let hint = if error.info().starts_with("mapping values are not allowed") {
        "; a value containing \": \" must be quoted"
    } else {
        ""
    };
    format!(
        "the front matter is not valid YAML: {} (line {}, column {}{hint})",
        error.info(),
        marker.line() + 1,
        marker.col() + 1
    )
}

/// A scalar's text (strings, numbers, booleans); `None` for collections and nulls.
fn scalar_text(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Whitespace runs (newlines of a folded or literal block included) as single spaces: each
/// skill stays one entry of the prompt's list.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn capped(text: String, max_chars: usize, field: &str, warnings: &mut Vec<String>) -> String {
    let chars = text.chars().count();
    if chars <= max_chars {
        return text;
    }
    warnings.push(format!(
        "the {field} has {chars} characters; only the first {max_chars} are used"
    ));
    text.chars().take(max_chars).collect()
}

/// The format's name rules: lowercase letters, digits and hyphens, no hyphen at either end and
/// no two in a row.
fn follows_naming_rules(name: &str) -> bool {
    name.chars()
        .all(|character| character.is_lowercase() || character.is_ascii_digit() || character == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// `allowed-tools` entries: separated by commas or whitespace (the format says spaces, Claude
/// Code writes commas), except inside parentheses, so `Bash(git status:*)` stays one entry.
fn split_tools(text: &str) -> Vec<String> {
    let mut entries = Vec::new();
    let mut current = String::new();
    let mut depth = 0_usize;
    for character in text.chars() {
        match character {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (character == ',' || character.is_whitespace()) {
            if !current.is_empty() {
                entries.push(std::mem::take(&mut current));
            }
        } else {
            current.push(character);
        }
    }
    if !current.is_empty() {
        entries.push(current);
    }
    entries
}

fn to_json(value: &Yaml) -> Value {
    match value {
        Yaml::String(text) => Value::String(text.clone()),
        Yaml::Integer(number) => Value::from(*number),
        Yaml::Real(text) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(text.clone()), Value::Number),
        Yaml::Boolean(flag) => Value::Bool(*flag),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(entries) => Value::Object(
            entries
                .iter()
                .map(|(key, value)| {
                    let key = scalar_text(key).unwrap_or_else(|| to_json(key).to_string());
                    (key, to_json(value))
                })
                .collect(),
        ),
        Yaml::Null | Yaml::BadValue | Yaml::Alias(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn skill_file(directory: &Path, name: &str, description: &str) -> PathBuf {
        fs::create_dir_all(directory).unwrap();
        let path = directory.join(SKILL_FILE);
        fs::write(
            &path,
            format!("---\nname: {name}\ndescription: {description}\n---\n# Body\nSecret steps.\n"),
        )
        .unwrap();
        fs::canonicalize(path).unwrap()
    }

    struct Layout {
        _root: tempfile::TempDir,
        config: PathBuf,
        workspace: PathBuf,
        elsewhere: PathBuf,
    }

    impl Layout {
        fn new() -> Layout {
            let root = tempfile::tempdir().unwrap();
            let base = fs::canonicalize(root.path()).unwrap();
            let layout = Layout {
                config: base.join("config"),
                workspace: base.join("ws"),
                elsewhere: base.join("elsewhere"),
                _root: root,
            };
            fs::create_dir_all(&layout.workspace).unwrap();
            layout
        }

        fn discover(&self, enabled: bool, config: &[PathBuf], flags: &[PathBuf]) -> Discovery {
            discover(&Places {
                config_dir: &self.config,
                workspace: &self.workspace,
                enabled,
                config_paths: config,
                flag_paths: flags,
                written: &crate::consumed::Written::default(),
            })
        }
    }

    fn names(discovery: &Discovery) -> Vec<(&str, SkillSource)> {
        discovery
            .loaded
            .iter()
            .map(|skill| (skill.name(), skill.source))
            .collect()
    }

    #[test]
    fn a_minimal_header_gives_name_and_description_and_no_optional_fields() {
        let (header, warnings) =
            parse("---\nname: pdf\ndescription: Work with PDF files.\n---\nbody").unwrap();
        assert_eq!(header.name, "pdf");
        assert_eq!(header.description, "Work with PDF files.");
        assert_eq!(header.license, None);
        assert_eq!(header.compatibility, None);
        assert!(header.allowed_tools.is_empty());
        assert_eq!(header.metadata, None);
        assert!(!header.disable_model_invocation);
        assert!(warnings.is_empty());
    }

    #[test]
    fn optional_fields_are_kept_for_the_report() {
        let text = "\u{feff}---\r\nname: release-checklist\r\ndescription: >\r\n  Cut a release:\r\n  bump, tag.\r\nlicense: MIT\r\ncompatibility: needs git\r\nallowed-tools: Read, Bash(git tag:*) Grep\r\nmetadata:\r\n  owner: ops\r\n  version: 2\r\n  tags: [ci, release]\r\ndisable-model-invocation: true\r\nmodel: opus\r\n---\r\n";
        let (header, warnings) = parse(text).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(header.name, "release-checklist");
        assert_eq!(header.description, "Cut a release: bump, tag.");
        assert_eq!(header.license.as_deref(), Some("MIT"));
        assert_eq!(header.compatibility.as_deref(), Some("needs git"));
        assert_eq!(header.allowed_tools, ["Read", "Bash(git tag:*)", "Grep"]);
        assert_eq!(
            header.metadata,
            Some(json!({"owner": "ops", "version": 2, "tags": ["ci", "release"]}))
        );
        assert!(header.disable_model_invocation);
        let (listed, _) =
            parse("---\nname: a\ndescription: b\nallowed-tools: [Read, \"Bash(ls *)\"]\n---\n")
                .unwrap();
        assert_eq!(listed.allowed_tools, ["Read", "Bash(ls *)"]);
    }

    #[test]
    fn headers_without_name_or_description_or_that_are_not_yaml_are_refused_with_a_reason() {
        let cases = [
            (
                "# Just markdown\n",
                "no front matter: the file must start with a line `---`",
            ),
            (
                "---\nname: x\n",
                "the front matter has no closing line `---` (within the first 64 KiB)",
            ),
            (
                "---\ndescription: d\n---\n",
                "the front matter has no `name`",
            ),
            (
                "---\nname: x\ndescription: \"\"\n---\n",
                "the front matter has no `description`",
            ),
            (
                "---\nname: [x]\ndescription: d\n---\n",
                "the front matter has no `name`",
            ),
            (
                "---\n- a list\n---\n",
                "the front matter is not a mapping of fields",
            ),
            ("---\n---\n", "the front matter is not a mapping of fields"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text).unwrap_err().to_string(), expected, "{text:?}");
        }
        let error = parse("---\nname: x\ndescription: Use when: the user asks\n---\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("the front matter is not valid YAML: mapping values are not allowed"),
            "{error}"
        );
        assert!(
            error.ends_with("(line 3, column 22; a value containing \": \" must be quoted)"),
            "{error}"
        );
    }

    #[test]
    fn aliases_are_refused_before_they_can_expand() {
        let text = "---\nname: x\ndescription: d\na: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\n";
        assert!(parse(text).unwrap_err().to_string().contains("YAML alias"));
    }

    #[test]
    fn names_and_descriptions_are_capped_at_the_format_limits_with_a_warning() {
        let name = "n".repeat(70);
        let description = "é".repeat(1030);
        let (header, warnings) = parse(&format!(
            "---\nname: {name}\ndescription: {description}\n---\n"
        ))
        .unwrap();
        assert_eq!(header.name, "n".repeat(64));
        assert_eq!(header.description, "é".repeat(1024));
        assert_eq!(
            warnings,
            [
                "the name has 70 characters; only the first 64 are used",
                "the description has 1030 characters; only the first 1024 are used"
            ]
        );
    }

    #[test]
    fn a_name_against_the_rules_is_kept_with_a_warning() {
        for name in ["Release Checklist", "-x", "x-", "a--b", "snake_case"] {
            let (header, warnings) =
                parse(&format!("---\nname: {name}\ndescription: d\n---\n")).unwrap();
            assert_eq!(header.name, name);
            assert_eq!(warnings.len(), 1, "{name}");
            assert!(warnings[0].contains("breaks the Agent Skills rules"));
        }
        for name in ["pdf", "release-checklist-2", "1password"] {
            let (_, warnings) =
                parse(&format!("---\nname: {name}\ndescription: d\n---\n")).unwrap();
            assert!(warnings.is_empty(), "{name}");
        }
    }

    #[test]
    fn the_default_places_are_searched_in_order_and_later_names_shadow_earlier_ones() {
        let layout = Layout::new();
        let global = skill_file(
            &layout.config.join("skills/deploy"),
            "deploy",
            "global deploy",
        );
        skill_file(
            &layout.config.join("skills/triage"),
            "triage",
            "global triage",
        );
        let pincer = skill_file(
            &layout.workspace.join(".pincer/skills/deploy"),
            "deploy",
            "pincer deploy",
        );
        let agents = skill_file(
            &layout.workspace.join(".agents/skills/deploy-here"),
            "deploy",
            "agents deploy",
        );
        skill_file(
            &layout.workspace.join(".agents/skills/review"),
            "review",
            "review",
        );
        let discovery = layout.discover(true, &[], &[]);
        assert_eq!(
            names(&discovery),
            [
                ("deploy", SkillSource::Workspace),
                ("review", SkillSource::Workspace),
                ("triage", SkillSource::Global),
            ]
        );
        assert_eq!(discovery.loaded[0].path, agents);
        assert_eq!(
            discovery.loaded[0].front_matter.description,
            "agents deploy"
        );
        assert_eq!(
            discovery.shadowed,
            [
                Shadowed {
                    name: "deploy".to_owned(),
                    path: global,
                    source: SkillSource::Global,
                    shadowed_by: pincer.clone(),
                },
                Shadowed {
                    name: "deploy".to_owned(),
                    path: pincer,
                    source: SkillSource::Workspace,
                    shadowed_by: agents,
                },
            ]
        );
        assert!(discovery.skipped.is_empty());
        assert!(discovery.enabled);
    }

    #[test]
    fn config_paths_then_flags_come_last_in_each_of_their_three_forms() {
        let layout = Layout::new();
        skill_file(
            &layout.workspace.join(".agents/skills/lint"),
            "lint",
            "workspace lint",
        );
        // A directory of skills, relative to the workspace.
        skill_file(&layout.workspace.join("team/lint"), "lint", "team lint");
        // One skill directory and one SKILL.md file.
        let one = skill_file(&layout.elsewhere.join("one"), "one", "the one");
        let file = skill_file(&layout.elsewhere.join("loose"), "lint", "flag lint");
        let discovery = layout.discover(
            true,
            &[PathBuf::from("team")],
            &[layout.elsewhere.join("one"), file.clone()],
        );
        assert_eq!(
            names(&discovery),
            [("lint", SkillSource::Flag), ("one", SkillSource::Flag)]
        );
        assert_eq!(discovery.loaded[0].path, file);
        assert_eq!(discovery.loaded[1].path, one);
        let by: Vec<(&str, SkillSource)> = discovery
            .shadowed
            .iter()
            .map(|shadowed| (shadowed.name.as_str(), shadowed.source))
            .collect();
        assert_eq!(
            by,
            [
                ("lint", SkillSource::Workspace),
                ("lint", SkillSource::Config)
            ]
        );
    }

    #[test]
    fn without_discovery_only_flag_paths_load() {
        let layout = Layout::new();
        skill_file(&layout.config.join("skills/global"), "global", "g");
        skill_file(&layout.workspace.join(".agents/skills/here"), "here", "h");
        skill_file(&layout.workspace.join("team/configured"), "configured", "c");
        let flagged = skill_file(&layout.elsewhere.join("flagged"), "flagged", "f");
        let discovery = layout.discover(false, &[PathBuf::from("team")], &[flagged]);
        assert_eq!(names(&discovery), [("flagged", SkillSource::Flag)]);
        assert!(!discovery.enabled);
        assert!(layout.discover(false, &[], &[]).loaded.is_empty());
    }

    #[test]
    fn bad_skills_are_skipped_naming_the_file_and_good_neighbours_still_load() {
        let layout = Layout::new();
        let skills = layout.workspace.join(".agents/skills");
        skill_file(&skills.join("good"), "good", "fine");
        fs::create_dir_all(skills.join("broken")).unwrap();
        fs::write(skills.join("broken/SKILL.md"), "---\nname: broken\n---\n").unwrap();
        fs::create_dir_all(skills.join("binary")).unwrap();
        fs::write(skills.join("binary/SKILL.md"), [0xff, 0xfe, 0x00]).unwrap();
        // Not skills: a plain file, a hidden directory, a directory without SKILL.md.
        fs::write(
            skills.join("README.md"),
            "---\nname: readme\ndescription: x\n---\n",
        )
        .unwrap();
        skill_file(&skills.join(".hidden"), "hidden", "h");
        fs::create_dir_all(skills.join("empty")).unwrap();
        let discovery = layout.discover(true, &[], &[]);
        assert_eq!(names(&discovery), [("good", SkillSource::Workspace)]);
        let skipped: Vec<(PathBuf, &str)> = discovery
            .skipped
            .iter()
            .map(|problem| (problem.path.clone(), problem.message.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (skills.join("binary/SKILL.md"), "not valid UTF-8"),
                (
                    skills.join("broken/SKILL.md"),
                    "the front matter has no `description`"
                ),
            ]
        );
    }

    #[test]
    fn missing_or_empty_explicit_paths_are_reported_but_missing_default_places_are_not() {
        let layout = Layout::new();
        fs::create_dir_all(layout.elsewhere.join("nothing")).unwrap();
        let missing = layout.elsewhere.join("missing");
        let discovery = layout.discover(
            true,
            &[PathBuf::from("not-here")],
            &[missing.clone(), layout.elsewhere.join("nothing")],
        );
        assert!(discovery.loaded.is_empty());
        let skipped: Vec<&Path> = discovery
            .skipped
            .iter()
            .map(|problem| problem.path.as_path())
            .collect();
        assert_eq!(
            skipped,
            [
                layout.workspace.join("not-here").as_path(),
                missing.as_path(),
                layout.elsewhere.join("nothing").as_path()
            ]
        );
        assert!(
            discovery.skipped[0]
                .message
                .starts_with("the skill path cannot be used: ")
        );
        assert_eq!(
            discovery.skipped[2].message,
            "no SKILL.md in the directory or in its subdirectories"
        );
    }

    #[test]
    fn a_skill_reached_twice_is_loaded_once_without_a_shadow() {
        let layout = Layout::new();
        let path = skill_file(&layout.workspace.join(".agents/skills/once"), "once", "o");
        std::os::unix::fs::symlink(
            layout.workspace.join(".agents/skills/once"),
            layout.workspace.join("alias"),
        )
        .unwrap();
        let discovery = layout.discover(true, &[], &[layout.workspace.join("alias"), path.clone()]);
        assert_eq!(names(&discovery), [("once", SkillSource::Workspace)]);
        assert_eq!(discovery.loaded[0].path, path);
        assert!(discovery.shadowed.is_empty());
    }

    #[test]
    fn only_skills_a_model_may_start_are_listed() {
        let layout = Layout::new();
        let skills = layout.workspace.join(".agents/skills");
        skill_file(&skills.join("auto"), "auto", "a");
        fs::create_dir_all(skills.join("manual")).unwrap();
        fs::write(
            skills.join("manual/SKILL.md"),
            "---\nname: manual\ndescription: m\ndisable-model-invocation: true\n---\n",
        )
        .unwrap();
        let discovery = layout.discover(true, &[], &[]);
        assert_eq!(discovery.loaded.len(), 2);
        let listed: Vec<&str> = discovery.listed().map(Skill::name).collect();
        assert_eq!(listed, ["auto"]);
    }

    #[test]
    fn a_long_body_is_not_read_past_the_header_limit() {
        let layout = Layout::new();
        let directory = layout.workspace.join(".agents/skills/big");
        fs::create_dir_all(&directory).unwrap();
        let mut text = "---\nname: big\ndescription: A big one.\n---\n".to_owned();
        text.push_str(&"é".repeat(100_000));
        fs::write(directory.join(SKILL_FILE), text).unwrap();
        let discovery = layout.discover(true, &[], &[]);
        assert_eq!(names(&discovery), [("big", SkillSource::Workspace)]);
    }
}
