//! The 2024-11-05 HTTP+SSE stream read with `EventSource` (the transport's historical
//! browser API). Its events are turned back into SSE text and fed to the engine's own
//! parser, so both ways of reading the stream behave the same. `EventSource` cannot send
//! custom headers; when the host configured some, the engine asks for `fetch` instead.

use crate::engine::core::ResponseHead;
use crate::engine::transport::SseReader;
use crate::error::Error;
use crate::http::request::HttpRequest;
use crate::web::driver::{now, pump, Handle};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{EventSource, MessageEvent};

#[wasm_bindgen(module = "/src/web/js/fetch.js")]
extern "C" {
    /// True when this environment has `EventSource`.
    #[wasm_bindgen(js_name = hasEventSource)]
    pub(super) fn available() -> bool;
}

/// The SSE text of one event, for the engine's parser.
fn frame(event: &str, data: &str, id: &str) -> String {
    let mut s = String::with_capacity(data.len() + 32);
    if !id.is_empty() {
        s.push_str("id: ");
        s.push_str(id);
        s.push('\n');
    }
    if event != "message" {
        s.push_str("event: ");
        s.push_str(event);
        s.push('\n');
    }
    for line in crate::text::split(data, "\n") {
        s.push_str("data: ");
        s.push_str(line);
        s.push('\n');
    }
    s.push('\n');
    s
}

fn feed(h: &Handle, id: u64, text: &str) {
    {
        let mut d = h.borrow_mut();
        let t = now();
        d.core.on_chunk(id, text.as_bytes(), t);
    }
    pump(h);
}

/// Opens the stream; events go to the engine as exchange `req.id`.
// Out of line: not on the first call's path (`driver::pump`).
#[inline(never)]
pub(super) fn open(h: &Handle, req: HttpRequest) {
    let id = req.id;
    let es = match EventSource::new(&req.url) {
        Ok(es) => es,
        Err(e) => {
            {
                let mut d = h.borrow_mut();
                let t = now();
                d.core.on_fail(
                    id,
                    Error::network(format!(
                        "EventSource failed: {}",
                        crate::web::convert::describe(&e)
                    )),
                    t,
                );
            }
            pump(h);
            return;
        }
    };
    h.borrow_mut().event_sources.insert(id, es.clone());
    h.borrow_mut().sse_transport = Some(SseReader::EventSource);
    let weak = Rc::downgrade(h);
    let opened = Rc::new(RefCell::new(false));
    let o2 = opened.clone();
    let w = weak.clone();
    let on_open = Closure::wrap(Box::new(move |_e: web_sys::Event| {
        let Some(h) = w.upgrade() else { return };
        *o2.borrow_mut() = true;
        {
            let mut d = h.borrow_mut();
            let t = now();
            let head = ResponseHead {
                status: 200,
                content_type: Some("text/event-stream"),
                ..Default::default()
            };
            d.core.on_head(id, head, t);
        }
        pump(&h);
    }) as Box<dyn FnMut(web_sys::Event)>);
    es.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    let w = weak.clone();
    let on_message = Closure::wrap(Box::new(move |e: MessageEvent| {
        let Some(h) = w.upgrade() else { return };
        let data = e.data().as_string().unwrap_or_default();
        feed(&h, id, &frame(&e.type_(), &data, &e.last_event_id()));
    }) as Box<dyn FnMut(MessageEvent)>);
    es.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let _ = es.add_event_listener_with_callback("endpoint", on_message.as_ref().unchecked_ref());
    let w = weak;
    let es2 = es.clone();
    let on_error = Closure::wrap(Box::new(move |_e: web_sys::Event| {
        // EventSource would reconnect by itself; the engine decides instead.
        es2.close();
        let Some(h) = w.upgrade() else { return };
        let removed = h.borrow_mut().event_sources.remove(&id).is_some();
        if removed {
            {
                let mut d = h.borrow_mut();
                let t = now();
                d.core.on_fail(
                    id,
                    Error::network("the HTTP+SSE stream failed (EventSource error)"),
                    t,
                );
            }
            pump(&h);
        }
    }) as Box<dyn FnMut(web_sys::Event)>);
    es.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The closures live as long as the EventSource (freed with the page/worker).
    on_open.forget();
    on_message.forget();
    on_error.forget();
}
