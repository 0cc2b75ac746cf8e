//! `--record FILE` / `--replay FILE` (SPEC §15) for the commands that call models (`run`,
//! `resume`, `compact`, `auth test`): the one place where the flags become a cassette and the
//! transport every model call of the command goes through.
//!
//! What replaying changes for a command, besides the transport:
//! - no credential is looked up or needed: each API model gets one stand-in credential without
//!   a key (so no cooldown is read or written, and a recorded rotation between auth profiles
//!   does not replay; retries and fallbacks do);
//! - with no `-m` and no model recorded in the session, the model is the one of the cassette's
//!   first interaction, before the configured default (a cassette answers only its own model).

use std::sync::Arc;

use super::env::RunEnv;
use crate::cassette::{Cassette, CassetteError, ReplayOptions};
use crate::engine::api::Credential;
use crate::error::{CliError, CliResult, Exit};
use crate::plan::{CassetteRequest, TurnRequest};
use crate::provider::http::Transport;

/// The command's cassette, when `--record` or `--replay` named one.
#[derive(Debug, Default)]
pub(crate) struct RunCassette {
    cassette: Option<Arc<Cassette>>,
}

impl RunCassette {
    /// Open the cassette the flags name (a replayed one is read and checked whole, now).
    pub(crate) fn open(context: &dyn RunEnv, args: &CassetteRequest) -> CliResult<RunCassette> {
        let opened = match (&args.record, &args.replay) {
            (_, Some(path)) => Cassette::replay(
                path,
                ReplayOptions {
                    matching: args.matching,
                    pace: args.replay_pace,
                    workspace: context.workspace().to_path_buf(),
                },
            ),
            (Some(path), None) => Cassette::record(path),
            (None, None) => return Ok(RunCassette::default()),
        };
        let cassette = opened.map_err(|error| {
            if let CassetteError::Io { path, source, .. } = &error
                && args.replay.is_none()
                && crate::fs::NotRegular::of(source).is_some()
            {
                return crate::error::user_file_error("cassette", path, source);
            }
            let hint = match &error {
                CassetteError::Io { .. } if args.replay.is_some() => {
                    "record one with --record FILE (or PINCER_RECORD) first"
                }
                CassetteError::Io { .. } => "pass a writable path to --record",
                CassetteError::Line { .. } => {
                    "a cassette is written by `pincer … --record FILE`; re-record it if it was edited"
                }
            };
            CliError::usage(error.to_string()).with_hint(hint)
        })?;
        Ok(RunCassette {
            cassette: Some(Arc::new(cassette)),
        })
    }

    /// [`RunCassette::open`] for a turn: a dry run records nothing (it touches no file), but
    /// reads a cassette it would replay (for its model).
    pub(crate) fn for_turn(context: &dyn RunEnv, args: &TurnRequest) -> CliResult<RunCassette> {
        if args.dry_run && args.cassette.replay.is_none() {
            return Ok(RunCassette::default());
        }
        RunCassette::open(context, &args.cassette)
    }

    /// Whether model requests are answered from the cassette.
    pub(crate) fn replaying(&self) -> bool {
        self.cassette
            .as_ref()
            .is_some_and(|cassette| cassette.is_replay())
    }

    /// The model of the cassette's first interaction, when replaying.
    pub(crate) fn default_model(&self) -> Option<String> {
        self.cassette.as_ref()?.default_model()
    }

    /// The transport model calls use: the network (recording or not), or the cassette alone.
    pub(crate) fn transport(&self) -> CliResult<Transport> {
        let network = || {
            crate::provider::http::client()
                .map_err(|error| CliError::new(Exit::RunFailed, error.to_string()))
        };
        Ok(match &self.cassette {
            None => Transport::Network(network()?),
            Some(cassette) if cassette.is_replay() => Transport::Replaying(Arc::clone(cassette)),
            Some(cassette) => Transport::Recording {
                client: network()?,
                cassette: Arc::clone(cassette),
            },
        })
    }
}

/// Whether the flags ask for a replay (before the cassette is opened).
pub(crate) fn replaying(args: &CassetteRequest) -> bool {
    args.replay.is_some()
}

/// The credential an API model gets under replay: none at all (nothing is sent).
pub(crate) fn stand_in_credential() -> Credential {
    Credential {
        profile_id: None,
        source: "replay".to_owned(),
        key: None,
        cooling: false,
    }
}
