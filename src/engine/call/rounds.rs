//! A call's multi round-trip (MRTR) rounds (spec `basic/patterns/mrtr.mdx`): an
//! `input_required` result's `inputRequests`, checked against what this client declared,
//! presented to the host a few at a time (`limits.maxConcurrentInputs`), each answer checked
//! before it is kept; once every request is answered the call is sent again with
//! `inputResponses` and the `requestState` echoed byte-exact, under a new id. The call's
//! time budget is paused while a person answers.

use super::{Call, CallOutcome};
use crate::engine::actions::{Action, Ask, AskId, AskScope, UrlFacts};
use crate::engine::input_requests::{check_answer, check_declared};
use crate::engine::shared::{Owner, Shared};
use crate::engine::small_map::SmallMap;
use crate::error::json_object;
use crate::error::{Error, ErrorKind, Result};
use crate::json::RawJson;
use crate::json::{Map, Value};
use crate::protocol::input::{decode_input_required, InputRequest};

/// The state of an MRTR round.
pub(super) struct Round {
    pub(super) request_state: Option<RawJson>,
    pub(super) queued: Vec<(InputRequest, Option<UrlFacts>)>,
    pub(super) asking: SmallMap<AskId, String>,
    pub(super) requests: SmallMap<String, InputRequest>,
    pub(super) answers: Map,
}

impl Call {
    pub(super) fn on_input_required(
        &mut self,
        sh: &mut Shared,
        owner: &Owner,
        raw: &RawJson,
    ) -> Option<Result<CallOutcome>> {
        if !self.policy.allow_input {
            return self.finish(
                sh,
                Err(Error::invalid_result(format!(
                    "{} may not answer input_required",
                    self.method
                ))),
            );
        }
        self.rounds += 1;
        let max = sh.cfg.limits.max_input_rounds;
        if self.rounds > max {
            return self.finish(
                sh,
                Err(Error::new(
                    ErrorKind::InputRequired,
                    format!("the server still asks for input after {max} rounds"),
                )
                .with_data(json_object(vec![("rounds", max.into())]))),
            );
        }
        let ir = match decode_input_required(raw) {
            Ok(ir) => ir,
            Err(e) => return self.finish(sh, Err(e)),
        };
        if ir.input_requests.len() > sh.cfg.limits.max_input_requests {
            return self.finish(
                sh,
                Err(Error::invalid_result(format!(
                    "the server asked for {} inputs at once (limit {})",
                    ir.input_requests.len(),
                    sh.cfg.limits.max_input_requests
                ))),
            );
        }
        let mut queued = Vec::new();
        for req in ir.input_requests {
            match check_declared(&sh.cfg, &req) {
                Ok(url) => queued.push((req, url)),
                Err(e) => return self.finish(sh, Err(e)),
            }
        }
        self.budget.pause(sh.now);
        let requests = queued
            .iter()
            .map(|(r, _)| (r.key.clone(), r.clone()))
            .collect();
        self.round = Some(Round {
            request_state: ir.request_state,
            queued,
            asking: SmallMap::default(),
            requests,
            answers: Map::new(),
        });
        self.present(sh, owner);
        self.maybe_retry(sh, owner);
        None
    }

    pub(super) fn present(&mut self, sh: &mut Shared, owner: &Owner) {
        let cap = sh.cfg.limits.max_concurrent_inputs;
        let Some(r) = &mut self.round else { return };
        while r.asking.len() < cap {
            if r.queued.is_empty() {
                break;
            }
            let (req, url) = r.queued.remove(0);
            let id = sh.next_ask_id();
            r.asking.insert(id, req.key.clone());
            sh.track_ask(id, owner.clone());
            sh.push(Action::Ask(Ask {
                id,
                kind: req.kind,
                params: req.params.clone(),
                scope: AskScope::Request,
                task_id: None,
                key: req.key.clone(),
                method: self.method.clone(),
                url,
            }));
        }
    }

    pub(super) fn maybe_retry(&mut self, sh: &mut Shared, owner: &Owner) {
        let ready = self
            .round
            .as_ref()
            .is_some_and(|r| r.asking.is_empty() && r.queued.is_empty());
        if ready {
            self.budget.resume(sh.now);
            self.send(sh, owner);
        }
    }

    pub(super) fn on_answer(
        &mut self,
        sh: &mut Shared,
        owner: &Owner,
        ask: AskId,
        answer: std::result::Result<Value, Error>,
    ) -> Option<Result<CallOutcome>> {
        let Some(r) = &mut self.round else {
            return None;
        };
        let Some(key) = r.asking.remove(&ask) else {
            return None; // stale: the ask was cancelled
        };
        sh.forget_ask(&ask);
        let checked = answer.and_then(|v| match r.requests.get(&key) {
            Some(req) => check_answer(req, &v),
            None => Err(Error::invalid_result("answer for an unknown input request")),
        });
        match checked {
            Err(e) => self.finish(sh, Err(e)),
            Ok(v) => {
                r.answers.insert(key, v);
                self.present(sh, owner);
                self.maybe_retry(sh, owner);
                None
            }
        }
    }
}
