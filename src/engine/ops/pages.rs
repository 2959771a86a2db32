//! Paginated listings: the [`Pager`] that follows `nextCursor` through every page
//! (serving cached pages at once), and [`PagesOp`] (`listAll*`).

use super::rpc::finish_rpc;
use super::{policy_for, with_meta, Listing, Purpose};
use crate::engine::actions::{OpOptions, Output};
use crate::engine::call::{Call, CallInput, CallOutcome};
use crate::engine::shared::{Owner, Shared};
use crate::engine::task::TaskBook;
use crate::error::{sanitize, Error, Result};
use crate::json::{Map, Value};
use crate::sorted_map::SortedSet;
use crate::time::Millis;

use super::{Aborted, Ctx, OpInput, Operation, Step};
use crate::engine::actions::OpId;

/// Follows `nextCursor` through every page of a list.
pub(crate) struct Pager {
    listing: Listing,
    method: String,
    key: &'static str,
    items: Vec<Value>,
    seen: SortedSet<String>,
    call: Option<Call>,
    opts: OpOptions,
    pages: u32,
}

/// Pages followed at most by one listing.
const MAX_PAGES: u32 = 10_000;

impl Pager {
    pub(crate) fn new(listing: Listing, opts: OpOptions) -> Pager {
        Pager {
            listing,
            method: listing.method().to_string(),
            key: listing.items_key(),
            items: Vec::new(),
            seen: SortedSet::default(),
            call: None,
            opts,
            pages: 0,
        }
    }

    fn purpose(&self) -> Purpose {
        self.listing.purpose()
    }

    /// Takes one page; returns the cursor of the next one, or `None` at the end.
    fn take_page(&mut self, out: Output) -> Result<Option<String>> {
        // The page is this pager's: its items move into the list (a listing's tools carry
        // their schemas; copying them would cost a deep copy per list).
        let mut v = out.into_value();
        let Some(Value::Array(items)) = v.get_mut(self.key) else {
            return Err(Error::invalid_result(format!(
                "{} result has no {} array",
                self.method, self.key
            )));
        };
        self.items.append(items);
        self.pages += 1;
        match v.get("nextCursor") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(c)) => {
                if !self.seen.insert(c.clone()) || self.pages >= MAX_PAGES {
                    return Err(Error::invalid_result(format!(
                        "{} pagination does not end (cursor \"{}\" seen again)",
                        self.method,
                        sanitize(c, 60)
                    )));
                }
                Ok(Some(c.clone()))
            }
            Some(_) => Err(Error::invalid_result("nextCursor is not a string")),
        }
    }

    /// Requests pages starting at `cursor`, serving cached pages at once.
    pub(crate) fn request(
        &mut self,
        sh: &mut Shared,
        tasks: &mut TaskBook,
        owner: &Owner,
        mut cursor: Option<String>,
    ) -> Option<Result<Vec<Value>>> {
        loop {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone().into());
            }
            if !self.opts.no_cache {
                let auth = sh.cfg.authorization().map(str::to_string);
                let key = cursor.clone().unwrap_or_default();
                if let Some(raw) = sh.cache.get(&self.method, &key, auth.as_deref(), sh.now) {
                    let purpose = self.purpose();
                    match finish_rpc(sh, tasks, &purpose, raw).and_then(|o| self.take_page(o)) {
                        Ok(Some(next)) => {
                            cursor = Some(next);
                            continue;
                        }
                        Ok(None) => return Some(Ok(std::mem::take(&mut self.items))),
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
            let policy = policy_for(sh, &self.purpose(), &self.opts);
            let mut call = Call::new(
                &self.method,
                with_meta(params, &self.opts),
                Vec::new(),
                policy,
            );
            call.start(sh, owner);
            self.call = Some(call);
            return None;
        }
    }

    pub(crate) fn handle(
        &mut self,
        sh: &mut Shared,
        tasks: &mut TaskBook,
        owner: &Owner,
        input: CallInput,
    ) -> Option<Result<Vec<Value>>> {
        let call = self.call.as_mut()?;
        let outcome = call.handle(sh, owner, input)?;
        let call = self.call.take()?;
        let raw = match outcome {
            Ok(CallOutcome::Complete(raw)) => raw,
            Ok(CallOutcome::Task(_)) => {
                return Some(Err(Error::invalid_result("unexpected task result")))
            }
            Err(e) => return Some(Err(e)),
        };
        let key = call
            .params()
            .get("cursor")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let auth = sh.cfg.authorization().map(str::to_string);
        let now = sh.now;
        sh.cache
            .put(&self.method, &key, None, auth.as_deref(), &raw, now);
        let purpose = self.purpose();
        match finish_rpc(sh, tasks, &purpose, raw).and_then(|o| self.take_page(o)) {
            Ok(Some(next)) => self.request(sh, tasks, owner, Some(next)),
            Ok(None) => Some(Ok(std::mem::take(&mut self.items))),
            Err(e) => Some(Err(e)),
        }
    }

    pub(crate) fn deadline(&self) -> Option<Millis> {
        self.call.as_ref().and_then(Call::deadline)
    }

    pub(crate) fn cancel(&mut self, sh: &mut Shared) {
        if let Some(mut c) = self.call.take() {
            c.cancel(sh);
        }
    }
}

/// `listAll*`.
pub(crate) struct PagesOp {
    pub pager: Pager,
}

impl Operation for PagesOp {
    /// Pending until the pager has every page.
    fn handle(&mut self, cx: &mut Ctx, id: OpId, input: OpInput) -> Step {
        let OpInput::Call(input) = input else {
            return Step::Pending;
        };
        match self.pager.handle(cx.sh, cx.tasks, &Owner::Op(id), input) {
            None => Step::Pending,
            Some(r) => Step::Done(r.map(|items| Output::Value(Value::Array(items)))),
        }
    }

    fn deadline(&self) -> Option<Millis> {
        self.pager.deadline()
    }

    fn abort(&mut self, cx: &mut Ctx, _id: OpId) -> Aborted {
        self.pager.cancel(cx.sh);
        Aborted::Quiet
    }
}
