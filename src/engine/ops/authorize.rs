//! `authorize()`: an operation that waits for the authorization flow
//! ([`crate::engine::core`]'s `auth` hooks run the flow; each `authorize()` waits for it).

use super::{Aborted, Ctx, OpInput, Operation, Step};
use crate::engine::actions::{OpId, Output};
use crate::time::Millis;

/// Waits for the flow to end: `Ok` once a token is held, the flow's error otherwise.
/// It has no timer of its own, and aborting it leaves the flow running.
pub(crate) struct AuthOp;

impl Operation for AuthOp {
    fn handle(&mut self, _cx: &mut Ctx, _id: OpId, input: OpInput) -> Step {
        match input {
            OpInput::Authorized(r) => Step::Done(r.map(|()| Output::Empty)),
            OpInput::Call(_) | OpInput::Notification(..) | OpInput::TaskFinal(_) => Step::Pending,
        }
    }

    fn deadline(&self) -> Option<Millis> {
        None
    }

    fn abort(&mut self, _cx: &mut Ctx, _id: OpId) -> Aborted {
        Aborted::Quiet
    }

    fn awaits_authorization(&self) -> bool {
        true
    }
}
