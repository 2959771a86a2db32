//! One HTTP exchange, response side: head, body chunks, end. Turns bytes into JSON-RPC
//! messages (a JSON body or SSE `message` events) or a typed failure, within the
//! configured bounds. It knows nothing of what the messages mean; the engine routes them.

use crate::error::{sanitize, Error, ErrorKind};
use crate::http::response::{classify_content_type, http_error, is_success, BodyKind};
use crate::protocol::jsonrpc::{decode, Message};
use crate::sse::SseParser;

/// What an exchange produced from the bytes fed to it.
#[derive(Debug)]
pub(crate) enum Output {
    /// A JSON-RPC message (with the HTTP status it came with).
    Message(Message, u16),
    /// The exchange failed; nothing more will come from it.
    Failed(Error),
    /// An SSE event's `id`/`retry` (legacy resumability). `id` is the stream's last
    /// event ID as of this event: `None` when it is empty, or when a `Last-Event-ID`
    /// header cannot carry it (the stream is then not resumable from here).
    SseMeta {
        id: Option<String>,
        retry: Option<u64>,
    },
    /// An SSE event of another type than `message` (the 2024-11-05 `endpoint` event).
    Event { event: String, data: String },
}

/// True when an SSE event id can be sent back in `Last-Event-ID`: visible ASCII and
/// inner spaces. `fetch` takes header values as bytes: it refuses characters above
/// U+00FF, sends U+0080–U+00FF as single bytes (not the UTF-8 the server sent) and
/// strips surrounding spaces, so any other id would fail or name another event
/// (found by the engine fuzz target).
fn resumable_id(id: &str) -> bool {
    id.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !id.starts_with(' ') && !id.ends_with(' ')
}

enum Body {
    AwaitHead,
    Json(Vec<u8>),
    Sse(SseParser),
    /// A non-2xx answer that is not JSON: kept (bounded) for the error message.
    Refused(Vec<u8>, String),
    /// 2xx with an unusable content type, or a finished exchange.
    Done,
}

/// Bounds for an exchange.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub max_body_bytes: usize,
    pub max_event_bytes: usize,
}

/// The response side of one HTTP exchange.
pub(crate) struct Exchange {
    body: Body,
    status: u16,
    bounds: Bounds,
    /// Bytes of body received so far.
    received: usize,
    /// True once at least one message came out (used to tell a dropped stream from an empty one).
    pub produced: bool,
    /// The result of this exchange's request goes to the host unread by the engine (a tool
    /// result with no `outputSchema` to check): the shell may parse a large JSON body
    /// itself and feed the engine a stand-in whose result only names what it kept
    /// (`web::fetch`).
    pub(crate) host_result: bool,
}

const ERROR_BODY_KEEP: usize = 64 * 1024;

impl Exchange {
    pub(crate) fn new(bounds: Bounds) -> Exchange {
        Exchange {
            body: Body::AwaitHead,
            status: 0,
            bounds,
            received: 0,
            produced: false,
            host_result: false,
        }
    }

    pub(crate) fn status(&self) -> u16 {
        self.status
    }

    /// True while nothing of the response has arrived (no head yet).
    pub(crate) fn awaits_head(&self) -> bool {
        matches!(self.body, Body::AwaitHead)
    }

    /// The most bytes a JSON body may have.
    pub(crate) fn max_body_bytes(&self) -> usize {
        self.bounds.max_body_bytes
    }

    /// True when the body is an SSE stream.
    pub(crate) fn is_stream(&self) -> bool {
        matches!(self.body, Body::Sse(_))
    }

    /// The response head arrived.
    pub(crate) fn on_head(
        &mut self,
        status: u16,
        content_type: Option<&str>,
        out: &mut Vec<Output>,
    ) {
        self.status = status;
        let kind = classify_content_type(content_type);
        self.body = match (is_success(status), kind) {
            (_, BodyKind::Json) => Body::Json(Vec::new()),
            (true, BodyKind::Sse) => Body::Sse(SseParser::new(self.bounds.max_event_bytes)),
            (true, BodyKind::Other(ct)) => {
                if status == 202 || status == 204 {
                    // Accepted without a body: what a notification or response POST gets.
                    Body::Done
                } else {
                    out.push(Output::Failed(Error::protocol(format!(
                        "unexpected response content type \"{}\" (HTTP {status}); expected application/json or text/event-stream",
                        sanitize(&ct, 60)
                    ))));
                    Body::Done
                }
            }
            (false, BodyKind::Sse) => Body::Refused(Vec::new(), "text/event-stream".into()),
            (false, BodyKind::Other(ct)) => Body::Refused(Vec::new(), ct),
        };
    }

    /// For a JSON body: the most bytes the body may have (the shell may then read it whole
    /// and hand it over in one piece). `None` for any other body (fed chunk by chunk).
    pub(crate) fn json_limit(&self) -> Option<usize> {
        match &self.body {
            Body::Json(_) => Some(self.bounds.max_body_bytes.saturating_sub(self.received)),
            _ => None,
        }
    }

    /// A piece of the body arrived, owned: the first piece of a JSON body within the limit
    /// becomes its buffer (no copy); anything else is [`Exchange::on_chunk`].
    pub(crate) fn on_chunk_owned(&mut self, chunk: Vec<u8>, out: &mut Vec<Output>) {
        if let Body::Json(buf) = &mut self.body {
            let total = self.received.saturating_add(chunk.len());
            if buf.is_empty() && total <= self.bounds.max_body_bytes {
                self.received = total;
                *buf = chunk;
                return;
            }
        }
        self.on_chunk(&chunk, out);
    }

    /// A chunk of the body arrived.
    pub(crate) fn on_chunk(&mut self, chunk: &[u8], out: &mut Vec<Output>) {
        self.received = self.received.saturating_add(chunk.len());
        match &mut self.body {
            Body::Json(buf) => {
                if self.received > self.bounds.max_body_bytes {
                    self.body = Body::Done;
                    out.push(Output::Failed(Error::protocol(format!(
                        "response body exceeds the limit of {} bytes",
                        self.bounds.max_body_bytes
                    ))));
                    return;
                }
                buf.extend_from_slice(chunk);
            }
            Body::Sse(parser) => {
                let mut events = Vec::new();
                let res = parser.feed(chunk, &mut events);
                for ev in events {
                    if ev.id.is_some() || ev.retry.is_some() {
                        out.push(Output::SseMeta {
                            id: ev.id.clone().filter(|id| resumable_id(id)),
                            retry: ev.retry,
                        });
                    }
                    let is_message = match ev.event.as_deref() {
                        None | Some("message") => true,
                        Some(other) => {
                            out.push(Output::Event {
                                event: other.to_string(),
                                data: ev.data.clone(),
                            });
                            false
                        }
                    };
                    if !is_message || ev.data.is_empty() {
                        continue;
                    }
                    match decode(&ev.data) {
                        Ok(m) => {
                            self.produced = true;
                            out.push(Output::Message(m, self.status));
                        }
                        Err(e) => {
                            self.body = Body::Done;
                            out.push(Output::Failed(e.with_kind(ErrorKind::Protocol)));
                            return;
                        }
                    }
                }
                if let Err(e) = res {
                    self.body = Body::Done;
                    out.push(Output::Failed(e));
                }
            }
            Body::Refused(buf, _) => {
                let room = ERROR_BODY_KEEP.saturating_sub(buf.len());
                buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Body::AwaitHead | Body::Done => {}
        }
    }

    /// The body ended (normally). Returns the last outputs.
    pub(crate) fn on_end(&mut self, out: &mut Vec<Output>) {
        let body = std::mem::replace(&mut self.body, Body::Done);
        match body {
            Body::Json(buf) => {
                if buf.iter().all(|b| b.is_ascii_whitespace()) {
                    if is_success(self.status) {
                        if self.status != 202 && self.status != 204 {
                            out.push(Output::Failed(Error::protocol(format!(
                                "empty application/json response (HTTP {})",
                                self.status
                            ))));
                        }
                    } else {
                        out.push(Output::Failed(http_error(
                            self.status,
                            "application/json",
                            &[],
                        )));
                    }
                    return;
                }
                let text = match std::str::from_utf8(&buf) {
                    Ok(t) => t,
                    Err(_) => {
                        out.push(Output::Failed(if is_success(self.status) {
                            Error::protocol("response body is not valid UTF-8")
                        } else {
                            http_error(self.status, "application/json", &buf)
                        }));
                        return;
                    }
                };
                match decode(text) {
                    Ok(m) => {
                        self.produced = true;
                        out.push(Output::Message(m, self.status));
                    }
                    Err(e) if is_success(self.status) => out.push(Output::Failed(e)),
                    // A JSON body that is not JSON-RPC on an error status: an HTTP error.
                    Err(_) => out.push(Output::Failed(http_error(
                        self.status,
                        "application/json",
                        &buf,
                    ))),
                }
            }
            Body::Sse(mut parser) => {
                parser.finish();
            }
            Body::Refused(buf, ct) => out.push(Output::Failed(http_error(self.status, &ct, &buf))),
            Body::AwaitHead | Body::Done => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    fn bounds() -> Bounds {
        Bounds {
            max_body_bytes: 1000,
            max_event_bytes: 1000,
        }
    }

    fn run(status: u16, ct: Option<&str>, chunks: &[&[u8]]) -> Vec<Output> {
        let mut x = Exchange::new(bounds());
        let mut out = Vec::new();
        x.on_head(status, ct, &mut out);
        for c in chunks {
            x.on_chunk(c, &mut out);
        }
        x.on_end(&mut out);
        out
    }

    fn failed_kind(out: &[Output]) -> Option<(ErrorKind, Option<u16>)> {
        out.iter().find_map(|o| match o {
            Output::Failed(e) => Some((e.kind, e.status)),
            _ => None,
        })
    }

    #[test]
    fn json_response_in_pieces() {
        let out = run(
            200,
            Some("application/json"),
            &[b"{\"jsonrpc\":\"2.0\",", b"\"id\":1,\"result\":{}}"],
        );
        match &out[..] {
            [Output::Message(Message::Response { id, .. }, 200)] => {
                assert_eq!(*id, RequestId::Number(1))
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn sse_response_with_notifications() {
        let out = run(
            200,
            Some("text/event-stream"),
            &[b": keepalive\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
              b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"],
        );
        assert_eq!(out.len(), 2);
        assert!(matches!(
            out[0],
            Output::Message(Message::Notification { .. }, _)
        ));
        assert!(matches!(
            out[1],
            Output::Message(Message::Response { .. }, _)
        ));
    }

    #[test]
    fn error_status_with_jsonrpc_body_is_a_message_with_status() {
        let out = run(
            404,
            Some("application/json"),
            &[br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}"#],
        );
        assert!(matches!(
            out[..],
            [Output::Message(Message::Error { .. }, 404)]
        ));
    }

    #[test]
    fn bad_bodies_are_typed_failures() {
        assert_eq!(
            failed_kind(&run(200, Some("application/json"), &[b"{oops"])),
            Some((ErrorKind::Protocol, None))
        );
        assert_eq!(
            failed_kind(&run(200, Some("application/json"), &[b"\xff\xfe"])),
            Some((ErrorKind::Protocol, None))
        );
        assert_eq!(
            failed_kind(&run(200, Some("text/html"), &[b"<html>"])),
            Some((ErrorKind::Protocol, None))
        );
        assert_eq!(
            failed_kind(&run(502, Some("text/html"), &[b"<html>bad gateway</html>"])),
            Some((ErrorKind::Http, Some(502)))
        );
        assert_eq!(
            failed_kind(&run(
                500,
                Some("application/json"),
                &[b"{\"detail\":\"x\"}"]
            )),
            Some((ErrorKind::Http, Some(500)))
        );
        assert_eq!(
            failed_kind(&run(200, Some("application/json"), &[b""])),
            Some((ErrorKind::Protocol, None))
        );
        assert_eq!(
            failed_kind(&run(
                200,
                Some("text/event-stream"),
                &[b"data: not json\n\n"]
            )),
            Some((ErrorKind::Protocol, None))
        );
        let big = vec![b' '; 2000];
        assert_eq!(
            failed_kind(&run(200, Some("application/json"), &[&big])),
            Some((ErrorKind::Protocol, None))
        );
        assert_eq!(failed_kind(&run(202, None, &[])), None);
    }

    /// The owned path (one piece, read whole by the shell) gives what the chunked one
    /// gives, for good and hostile bodies alike, and keeps the byte limit.
    #[test]
    fn an_owned_body_is_the_chunked_body() {
        let bodies: [&[u8]; 7] = [
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            b"{oops",
            b"\xff\xfe",
            b"",
            b"   ",
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ];
        for status in [200, 404, 500] {
            for body in bodies {
                let chunked = format!("{:?}", run(status, Some("application/json"), &[body]));
                let mut x = Exchange::new(bounds());
                let mut out = Vec::new();
                x.on_head(status, Some("application/json"), &mut out);
                assert_eq!(x.json_limit(), Some(1000));
                x.on_chunk_owned(body.to_vec(), &mut out);
                x.on_end(&mut out);
                assert_eq!(format!("{out:?}"), chunked, "{status} {body:?}");
            }
        }
        // Over the limit, in one piece or after a first piece: refused.
        let big = vec![b' '; 1001];
        for first in [&b""[..], &b"{"[..]] {
            let mut x = Exchange::new(bounds());
            let mut out = Vec::new();
            x.on_head(200, Some("application/json"), &mut out);
            x.on_chunk(first, &mut out);
            x.on_chunk_owned(big.clone(), &mut out);
            assert_eq!(failed_kind(&out), Some((ErrorKind::Protocol, None)));
            assert_eq!(x.json_limit(), None);
        }
        // Not JSON: no limit to read whole; the owned piece is fed as a chunk.
        let mut x = Exchange::new(bounds());
        let mut out = Vec::new();
        x.on_head(200, Some("text/event-stream"), &mut out);
        assert_eq!(x.json_limit(), None);
        x.on_chunk_owned(
            b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n".to_vec(),
            &mut out,
        );
        assert!(matches!(
            out[..],
            [Output::Message(Message::Response { .. }, 200)]
        ));
        assert_eq!(Exchange::new(bounds()).json_limit(), None);
    }

    #[test]
    fn other_events_are_reported_not_decoded() {
        let out = run(
            200,
            Some("text/event-stream"),
            &[b"event: endpoint\ndata: /messages?s=1\n\n"],
        );
        match &out[..] {
            [Output::Event { event, data }] => assert_eq!(
                (event.as_str(), data.as_str()),
                ("endpoint", "/messages?s=1")
            ),
            o => panic!("{o:?}"),
        }
    }
}
