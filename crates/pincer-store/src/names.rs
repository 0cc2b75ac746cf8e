//! Session names: create-only objects `names/<name>.json` mapping a name to a session id. Two
//! writers claiming one name at once get one answer: the first create wins, the other reads
//! the winner's session.

use bytes::Bytes;
use object_store::Attributes;

use crate::error::StoreError;
use crate::layout::{SessionId, check_name};
use crate::records::{FORMAT, NameRecord};
use crate::store::{Created, Store};

/// The answer of [`Store::claim_name`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameClaim {
    /// The name is this session's (now, or already).
    Claimed,
    /// The name belongs to another session.
    Taken(SessionId),
}

impl Store {
    /// Give `name` to `session` unless another session has it.
    pub async fn claim_name(
        &self,
        name: &str,
        session: &SessionId,
    ) -> Result<NameClaim, StoreError> {
        check_name(name)?;
        let record = NameRecord {
            format: FORMAT,
            name: name.to_owned(),
            session: session.to_string(),
        };
        let bytes = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
        // The reference first, so that deleting the session finds every name that may point
        // to it (a reference whose claim lost is skipped then).
        self.create(
            &self.layout.name_reference(session, name),
            bytes.clone(),
            Attributes::new(),
        )
        .await?;
        match self
            .create(&self.layout.name(name), bytes, Attributes::new())
            .await?
        {
            Created::Created { .. } => Ok(NameClaim::Claimed),
            Created::Exists => match self.resolve_name(name).await? {
                Some(owner) if owner == *session => Ok(NameClaim::Claimed),
                Some(owner) => Ok(NameClaim::Taken(owner)),
                // Deleted between the two requests: a deleted session's name is free again,
                // but not silently reclaimed here.
                None => Err(StoreError::Unavailable {
                    store: self.errors.store.clone(),
                    detail: format!("the name {name:?} was removed while being claimed; try again"),
                    timed_out: false,
                }),
            },
        }
    }

    /// The session named `name`, if any.
    pub async fn resolve_name(&self, name: &str) -> Result<Option<SessionId>, StoreError> {
        check_name(name)?;
        let Some(fetched) = self.fetch(&self.layout.name(name)).await? else {
            return Ok(None);
        };
        let record: NameRecord = serde_json::from_slice(&fetched.bytes)
            .map_err(|error| self.errors.corrupt("a name object", error))?;
        SessionId::parse(&record.session)
            .map(Some)
            .map_err(|error| self.errors.corrupt("a name object", error))
    }
}
