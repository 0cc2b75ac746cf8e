//! The session a turn writes to: a new one (`run`, named or not), or an existing one found by id,
//! name or `--last`, continued, forked or created on first use (`resume --create`). Names are
//! given under the names lock (SPEC §1.2); nothing is created before the caller asks.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::conversation::Message;
use crate::error::{CliError, CliResult, Exit, fork_error, session_error};
use crate::session::fork;
use crate::session::index::{self, Index};
use crate::session::names::{FoundOrCreated, ensure_name_free, find_or_create, give_name};
use crate::session::record::NewEntry;
use crate::session::record::{self, SessionHeader};
use crate::session::store::{self, SessionLock, TornRepair};
use crate::session::tail;
use crate::session::transcript::Transcript;

/// What setting up a session asks of the command around it.
pub(crate) trait Host {
    /// The home's sessions directory.
    fn sessions_dir(&self) -> &Path;
    /// The workspace a new session records as its `cwd`.
    fn workspace(&self) -> &Path;
    /// How long to wait for a busy session or the names lock (`--wait`).
    fn wait(&self) -> Option<Duration>;
    /// Lock the session at `path`, waiting as [`Host::wait`] says; the wait gives way to a signal
    /// or the run's timeout (the outer error). The lock's own refusal comes back as it is, for
    /// the caller to name the session it found.
    fn lock(&self, path: &Path) -> CliResult<Result<SessionLock, store::SessionError>>;
    /// `SESSION` or `--last` (with `--all`) as a session file of this home and workspace.
    fn resolve(
        &self,
        index: &Index,
        session: Option<&str>,
        last: bool,
        all: bool,
    ) -> CliResult<PathBuf>;
    /// The rows of the index `wanted` can mean, each checked against its file.
    fn scoped_index(&self, wanted: &index::Wanted<'_>) -> CliResult<Index>;
    /// Tell the user that a torn final line was repaired.
    fn torn(&self, path: &Path, torn: Option<&TornRepair>);
    /// Say a warning on stderr.
    fn warn(&self, message: &str);
    /// The session store the run uses (SPEC §19), if any: the session is then found, created
    /// and committed there, the local file being its cache.
    fn remote(&self) -> Option<&crate::remote::session::RunStore<'_>> {
        None
    }
}

/// Which session a turn runs on, as the command's flags say.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Choice<'a> {
    /// `run`: a new session.
    New(New<'a>),
    /// `resume`: an existing one, or one made on first use.
    Resume(Resume<'a>),
}

/// `run`'s session flags.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct New<'a> {
    /// `--session-id`: the new session's id (a UUID no session has).
    pub(crate) session_id: Option<&'a str>,
    /// `--name`.
    pub(crate) name: Option<&'a str>,
}

/// `resume`'s session flags.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Resume<'a> {
    /// `SESSION`: an id, id prefix or name.
    pub(crate) session: Option<&'a str>,
    /// `--last`, and `--all` for any workspace's.
    pub(crate) last: bool,
    pub(crate) all: bool,
    /// `--create`: `SESSION` is a name, made on first use.
    pub(crate) create: bool,
    /// `--fork`: continue in a copy.
    pub(crate) fork: bool,
    /// `--name`: (re)name the session the turn writes to.
    pub(crate) name: Option<&'a str>,
    /// `--session-id`: the id of the session `--fork` or `--create` makes.
    pub(crate) session_id: Option<&'a str>,
}

impl Resume<'_> {
    /// `--session-id` names the session the turn makes, so it needs `--fork` or `--create`.
    pub(crate) fn check(&self) -> CliResult<()> {
        if self.session_id.is_some() && !self.fork && !self.create {
            return Err(CliError::usage(
                "--session-id names a new session; `resume` makes one only with --fork or --create",
            )
            .with_hint(
                "add --fork (or --fork-session) to continue in a copy with that id, or --create \
                 NAME; to continue a session by id, give the id as SESSION",
            ));
        }
        Ok(())
    }
}

/// The index a turn needs: none for a plain `run` (a fresh UUIDv7 session looks nothing up: in a
/// home of thousands of sessions, a refresh would cost more than the turn), else the rows the
/// flags can mean.
pub(crate) fn index_for(host: &dyn Host, choice: &Choice<'_>) -> CliResult<Index> {
    let wanted = match choice {
        Choice::New(args) if args.session_id.is_none() && args.name.is_none() => {
            return Ok(Index::default());
        }
        Choice::New(args) => index::Wanted {
            queries: [args.session_id, args.name].into_iter().flatten().collect(),
            last: None,
        },
        Choice::Resume(args) => index::Wanted {
            queries: [args.session, args.name, args.session_id]
                .into_iter()
                .flatten()
                .collect(),
            last: (args.last && args.session.is_none()).then_some((host.workspace(), args.all)),
        },
    };
    host.scoped_index(&wanted)
}

/// The session a turn writes to, set up per the command.
pub(crate) struct SessionSetup {
    /// Where the turn's entries go (a file under its lock, or memory alone).
    pub(crate) transcript: Transcript,
    /// The conversation rebuilt from the session, for the model.
    pub(crate) context: Vec<Message>,
    pub(crate) session_id: Option<String>,
    pub(crate) session_name: Option<String>,
    /// Model (`provider/model`) and thinking level recorded in the session (resume).
    pub(crate) recorded_model: Option<String>,
    pub(crate) recorded_thinking: Option<String>,
    pub(crate) path: Option<PathBuf>,
}

fn new_header(host: &dyn Host, id: String) -> SessionHeader {
    SessionHeader {
        version: Some(store::CURRENT_VERSION),
        id,
        timestamp: record::now_iso(),
        cwd: host.workspace().to_string_lossy().into_owned(),
        parent_session: None,
        extra: serde_json::Map::new(),
    }
}

pub(crate) fn create_session(
    host: &dyn Host,
    id: String,
    name: Option<&str>,
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    if ephemeral {
        return Ok(SessionSetup {
            transcript: Transcript::ephemeral(Vec::new()),
            context: Vec::new(),
            session_id: Some(id),
            session_name: name.map(str::to_owned),
            recorded_model: None,
            recorded_thinking: None,
            path: None,
        });
    }
    let header = new_header(host, id);
    // The name is in the file from its first byte, so whoever looks for it next finds it.
    let entries = match name {
        Some(name) => vec![
            NewEntry::SessionInfo { name: Some(name) }
                .build(&record::new_entry_id(&|_| false), None)
                .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))?,
        ],
        None => Vec::new(),
    };
    let (writer, loaded) =
        store::create_locked(host.sessions_dir(), &header, &entries).map_err(session_error)?;
    let path = writer.path().to_owned();
    let transcript = Transcript::persisted(writer, loaded.entries);
    Ok(SessionSetup {
        transcript,
        context: Vec::new(),
        session_id: Some(loaded.header.id),
        session_name: name.map(str::to_owned),
        recorded_model: None,
        recorded_thinking: None,
        path: Some(path),
    })
}

/// Open an existing session for a turn. Only the end of the file is read: the entries from the
/// latest compaction's first kept one on (the whole branch when there is none), which rebuild the
/// context; name, model and thinking level recorded further back come from the index.
pub(crate) fn open_session(
    host: &dyn Host,
    index: &Index,
    path: &Path,
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    let (writer, tail) = if ephemeral {
        (None, tail::load(path).map_err(session_error)?)
    } else {
        // `--wait` gives way to a signal or the timeout.
        let lock = host
            .lock(path)?
            .map_err(|error| session_error(error.naming(index.name_of(path))))?;
        let (writer, tail, torn) = tail::open_locked(lock).map_err(session_error)?;
        host.torn(path, torn.as_ref());
        (Some(writer), tail)
    };
    let facts = tail::complete_facts(&tail, || {
        // The index the turn resolved the session with, when it still describes the file.
        let known = path
            .file_name()
            .filter(|_| path.parent() == Some(host.sessions_dir()))
            .and_then(|name| index.by_file(&name.to_string_lossy()))
            .filter(|entry| index::describes(entry, path));
        match known {
            Some(entry) => Some(entry.summary.clone()),
            None => index::cached_entry(host.sessions_dir(), path).map(|entry| entry.summary),
        }
    })
    .map_err(session_error)?;
    let session_id = Some(tail.session.header.id.clone());
    let mut entries = tail.session.entries;
    // The messages move into the turn's context rather than being copied: a 100 MB session is
    // not held twice (SPEC §12.1); a compaction reads the entries again in full.
    let (rebuilt, transcript) = match writer {
        Some(writer) => (
            crate::session::context::take_context(&mut entries, None),
            Transcript::persisted_thin(writer, entries),
        ),
        None => (
            crate::session::context::build_context(&entries, None),
            Transcript::ephemeral(entries),
        ),
    };
    Ok(SessionSetup {
        transcript,
        context: rebuilt.into_conversation(),
        session_id,
        session_name: facts.name.clone(),
        recorded_model: facts.model_ref(),
        recorded_thinking: facts.thinking_level.clone(),
        path: Some(path.to_owned()),
    })
}

pub(crate) fn setup_session(
    host: &dyn Host,
    index: &Index,
    choice: &Choice<'_>,
    ephemeral: bool,
) -> CliResult<SessionSetup> {
    if let Some(remote) = host.remote() {
        if ephemeral {
            return Err(CliError::usage(
                "--no-session-persistence writes no session, so there is nothing to keep in the \
                 session store",
            )
            .with_hint(
                "leave out --no-session-persistence, or turn the store off with --store ''",
            ));
        }
        return remote.setup(host, index, choice);
    }
    match choice {
        Choice::New(args) => {
            let id = new_session_id(index, args.session_id)?;
            match args.name {
                Some(name) => name_with(host, (index, ephemeral), name, None, || {
                    create_session(host, id, Some(name), ephemeral)
                }),
                None => create_session(host, id, None, ephemeral),
            }
        }
        Choice::Resume(args) => {
            let session = args.session;
            let mut found = None;
            if args.create {
                match create_named(host, index, args, ephemeral)? {
                    Created::Made(setup) => return Ok(*setup),
                    Created::Found(path) => found = path,
                }
            }
            let path = match found {
                Some(path) => path,
                None => host.resolve(index, session, args.last, args.all)?,
            };
            let path = if args.fork {
                let loaded = store::load(&path).map_err(session_error)?;
                let id = new_session_id(index, args.session_id)?;
                match args.name {
                    Some(name) => name_with(host, (index, ephemeral), name, None, || {
                        fork::fork(host.sessions_dir(), &loaded, None, Some(name), Some(id))
                            .map_err(fork_error)
                    })?,
                    None => fork::fork(host.sessions_dir(), &loaded, None, None, Some(id))
                        .map_err(fork_error)?,
                }
                .path
            } else {
                path
            };
            let mut setup = open_session(host, index, &path, ephemeral)?;
            if let Some(name) = args.name
                && !args.fork
                && setup.session_name.as_deref() != Some(name)
            {
                let transcript = &mut setup.transcript;
                name_with(
                    host,
                    (index, ephemeral),
                    name,
                    setup.session_id.as_deref(),
                    || {
                        transcript
                            .append(NewEntry::SessionInfo { name: Some(name) })
                            .map_err(session_error)
                    },
                )?;
                setup.session_name = Some(name.to_owned());
            }
            if args.fork {
                setup.session_name = args.name.map(str::to_owned);
            }
            Ok(setup)
        }
    }
}

/// The id of a session about to be made: `--session-id` checked (a UUID no session has), else
/// a fresh UUIDv7.
pub(crate) fn new_session_id(index: &Index, requested: Option<&str>) -> CliResult<String> {
    let Some(requested) = requested else {
        return Ok(uuid::Uuid::now_v7().to_string());
    };
    let id = uuid::Uuid::parse_str(requested)
        .map_err(|_| {
            CliError::usage(format!("--session-id '{requested}' is not a UUID"))
                .with_hint("give a UUID such as 0199a000-0000-7000-8000-000000000001")
        })?
        .to_string();
    if index.find(&id).is_one() {
        return Err(
            CliError::usage(format!("a session with id {id} already exists"))
                .with_hint("resume it with `pincer resume ID`, or leave out --session-id"),
        );
    }
    Ok(id)
}

/// What `resume --create NAME` found or made.
enum Created {
    /// A new session named NAME.
    Made(Box<SessionSetup>),
    /// The session that has the name now (another process may have just created it), or none
    /// found apart from the index's (then the usual lookup finds it).
    Found(Option<PathBuf>),
}

/// `resume --create NAME`: the session named NAME, or a new one of that name (`--session-id`
/// must then name the existing one, if it says anything). Of several processes creating it at
/// once, the one that takes the names lock first creates it and the others continue it.
fn create_named(
    host: &dyn Host,
    index: &Index,
    args: &Resume<'_>,
    ephemeral: bool,
) -> CliResult<Created> {
    let name = args.session.unwrap_or_default();
    if let crate::session::index::Lookup::One(existing) = index.find(name) {
        if let Some(wanted) = args.session_id
            && !existing.summary.id.eq_ignore_ascii_case(wanted)
        {
            return Err(CliError::usage(format!(
                "session '{name}' already exists with id {}, not {wanted}",
                existing.summary.id
            ))
            .with_hint(
                "--session-id names the session --create makes; leave it out to continue this one",
            ));
        }
        return Ok(Created::Found(None));
    }
    let id = new_session_id(index, args.session_id)?;
    let create = || create_session(host, id, Some(name), ephemeral);
    if ephemeral {
        ensure_name_free(index, name, None)?;
        return create().map(|setup| Created::Made(Box::new(setup)));
    }
    Ok(
        match find_or_create(host.sessions_dir(), host.wait(), name, create)? {
            FoundOrCreated::Created(setup) => Created::Made(Box::new(setup)),
            FoundOrCreated::Found(path) => Created::Found(Some(path)),
        },
    )
}

/// Give `name` with `give`: under the names lock when the session is persisted, and checked
/// against the index the run started with when nothing is written (`--no-session-persistence`
/// creates no file, not even the lock's).
fn name_with<T>(
    host: &dyn Host,
    (index, ephemeral): (&Index, bool),
    name: &str,
    except_id: Option<&str>,
    give: impl FnOnce() -> CliResult<T>,
) -> CliResult<T> {
    if ephemeral {
        ensure_name_free(index, name, except_id)?;
        give()
    } else {
        give_name(host.sessions_dir(), host.wait(), name, except_id, give)
    }
}

/// The model and thinking level a resumed session recorded, read without locking anything: from
/// the index, else from the end of the file. A file the index found damaged is loaded in full, so
/// that the resume refuses it with the full reader's error.
pub(crate) fn peek_recorded(
    host: &dyn Host,
    index: &Index,
    choice: &Choice<'_>,
) -> CliResult<(Option<String>, Option<String>)> {
    let Choice::Resume(args) = choice else {
        return Ok((None, None));
    };
    if let Some(remote) = host.remote() {
        // The store has the session; a local copy may not be there yet (another machine's
        // session): then what it recorded is read from the store.
        if let Ok(recorded @ (Some(_), _)) = peek_local(host, index, args) {
            return Ok(recorded);
        }
        return match args.session.filter(|_| !args.create) {
            Some(selector) => remote.peek_recorded(host, selector),
            None => Ok((None, None)),
        };
    }
    peek_local(host, index, args)
}

fn peek_local(
    host: &dyn Host,
    index: &Index,
    args: &Resume<'_>,
) -> CliResult<(Option<String>, Option<String>)> {
    let session = args.session;
    if args.create && !index.find(session.unwrap_or_default()).is_one() {
        return Ok((None, None));
    }
    let path = host.resolve(index, session, args.last, args.all)?;
    let facts = match path
        .file_name()
        .and_then(|name| index.by_file(&name.to_string_lossy()))
    {
        Some(entry) if entry.problem.is_none() => tail::SessionFacts::from_summary(&entry.summary),
        Some(_) => {
            let loaded = store::load(&path).map_err(session_error)?;
            tail::facts_of(&loaded.entries)
        }
        None => {
            let tail = tail::load(&path).map_err(session_error)?;
            tail::complete_facts(&tail, || None).map_err(session_error)?
        }
    };
    Ok((facts.model_ref(), facts.thinking_level.clone()))
}

/// The session a dry run describes, loaded read-only (nothing is created or locked).
pub(crate) fn dry_run_context(
    host: &dyn Host,
    index: &Index,
    choice: &Choice<'_>,
) -> CliResult<SessionSetup> {
    let empty = |id: Option<String>| SessionSetup {
        transcript: Transcript::ephemeral(Vec::new()),
        context: Vec::new(),
        session_id: id,
        session_name: None,
        recorded_model: None,
        recorded_thinking: None,
        path: None,
    };
    match choice {
        Choice::New(args) => Ok(empty(args.session_id.map(str::to_owned))),
        Choice::Resume(args) => {
            let session = args.session;
            if args.create && !index.find(session.unwrap_or_default()).is_one() {
                return Ok(empty(None));
            }
            let path = host.resolve(index, session, args.last, args.all)?;
            open_session(host, index, &path, true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::resolve;
    use pretty_assertions::assert_eq;

    /// A home in a temporary directory; locks fail at once when busy.
    struct TestHost {
        dir: tempfile::TempDir,
        torn: std::cell::RefCell<Vec<PathBuf>>,
    }

    impl TestHost {
        fn new() -> TestHost {
            TestHost {
                dir: tempfile::tempdir().unwrap(),
                torn: std::cell::RefCell::default(),
            }
        }

        fn setup(&self, choice: &Choice<'_>) -> CliResult<SessionSetup> {
            let index = index_for(self, choice)?;
            setup_session(self, &index, choice, false)
        }
    }

    impl Host for TestHost {
        fn sessions_dir(&self) -> &Path {
            self.dir.path()
        }
        fn workspace(&self) -> &Path {
            Path::new("/work/project")
        }
        fn wait(&self) -> Option<Duration> {
            None
        }
        fn lock(&self, path: &Path) -> CliResult<Result<SessionLock, store::SessionError>> {
            Ok(SessionLock::acquire(path, None))
        }
        fn resolve(
            &self,
            index: &Index,
            session: Option<&str>,
            last: bool,
            all: bool,
        ) -> CliResult<PathBuf> {
            resolve::resolve_selector(self.dir.path(), self.workspace(), index, session, last, all)
                .map_err(crate::error::resolve_error)
        }
        fn scoped_index(&self, wanted: &index::Wanted<'_>) -> CliResult<Index> {
            index::scoped(self.dir.path(), wanted)
                .map(|(index, _)| index)
                .map_err(session_error)
        }
        fn torn(&self, path: &Path, torn: Option<&TornRepair>) {
            if torn.is_some() {
                self.torn.borrow_mut().push(path.to_owned());
            }
        }

        fn warn(&self, _message: &str) {}
    }

    fn resume(session: &str) -> Resume<'_> {
        Resume {
            session: Some(session),
            ..Resume::default()
        }
    }

    #[test]
    fn a_named_run_writes_the_name_first_and_a_resume_by_name_finds_it() {
        let host = TestHost::new();
        let made = host
            .setup(&Choice::New(New {
                session_id: None,
                name: Some("nightly"),
            }))
            .unwrap();
        let path = made.path.clone().unwrap();
        assert_eq!(made.session_name.as_deref(), Some("nightly"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines().nth(1).unwrap().contains("\"session_info\""),
            "{text}"
        );
        drop(made);

        let resumed = host.setup(&Choice::Resume(resume("nightly"))).unwrap();
        assert_eq!(resumed.path.as_deref(), Some(path.as_path()));
        assert_eq!(resumed.session_name.as_deref(), Some("nightly"));
        assert!(host.torn.borrow().is_empty());
    }

    #[test]
    fn a_second_run_may_not_take_a_name_another_session_has() {
        let host = TestHost::new();
        let named = New {
            session_id: None,
            name: Some("nightly"),
        };
        drop(host.setup(&Choice::New(named)).unwrap());
        let error = host.setup(&Choice::New(named)).err().unwrap();
        assert_eq!(error.exit, Exit::Usage, "{error:?}");
        assert!(error.message.contains("nightly"), "{error:?}");
    }

    #[test]
    fn create_makes_the_session_once_and_then_continues_it() {
        let host = TestHost::new();
        let create = Choice::Resume(Resume {
            create: true,
            ..resume("cron")
        });
        let first = host.setup(&create).unwrap();
        let id = first.session_id.clone();
        drop(first);
        let second = host.setup(&create).unwrap();
        assert_eq!(second.session_id, id);
        assert_eq!(
            std::fs::read_dir(host.dir.path())
                .unwrap()
                .filter(|entry| {
                    entry
                        .as_ref()
                        .unwrap()
                        .path()
                        .extension()
                        .is_some_and(|ext| ext == "jsonl")
                })
                .count(),
            1
        );
    }

    #[test]
    fn a_fork_continues_in_a_copy_with_the_id_asked_for() {
        let host = TestHost::new();
        let original = host.setup(&Choice::New(New::default())).unwrap();
        let original_id = original.session_id.clone().unwrap();
        drop(original);
        let wanted = "0199a000-0000-7000-8000-0000000000f0";
        let fork = host
            .setup(&Choice::Resume(Resume {
                fork: true,
                session_id: Some(wanted),
                ..resume(&original_id)
            }))
            .unwrap();
        assert_eq!(fork.session_id.as_deref(), Some(wanted));
        // The id is taken now.
        let again = host
            .setup(&Choice::New(New {
                session_id: Some(wanted),
                name: None,
            }))
            .err()
            .unwrap();
        assert!(again.message.contains("already exists"), "{again:?}");
    }

    #[test]
    fn a_session_id_without_fork_or_create_is_a_usage_error() {
        let error = Resume {
            session_id: Some("0199a000-0000-7000-8000-0000000000f0"),
            ..resume("x")
        }
        .check()
        .err()
        .unwrap();
        assert_eq!(error.exit, Exit::Usage);
        assert!(
            Resume {
                fork: true,
                ..with_new_id()
            }
            .check()
            .is_ok()
        );
    }

    fn with_new_id() -> Resume<'static> {
        Resume {
            session_id: Some("0199a000-0000-7000-8000-0000000000f0"),
            ..Resume::default()
        }
    }
}
