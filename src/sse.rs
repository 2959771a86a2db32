//! An incremental, bounded Server-Sent Events parser: bytes in, events out.
//!
//! It follows the WHATWG "interpreting an event stream" rules
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>):
//! one optional UTF-8 BOM at the start of the stream is skipped; lines end with CRLF, LF
//! or CR; lines starting with `:` are comments (MCP servers send them as keep-alives,
//! `streamable-http.mdx`); `data`, `event`, `id` and `retry` are the known fields; an
//! empty line dispatches the event. Chunks may split the stream anywhere, including
//! between the CR and LF of one line break: the events are the same for every chunking.
//!
//! Three deliberate departures from a browser's `EventSource`, because MCP payloads are
//! JSON in UTF-8 and the peer is not trusted:
//!
//! - invalid UTF-8 is an error ([`ErrorKind::Protocol`](crate::error::ErrorKind::Protocol)),
//!   not replaced with U+FFFD;
//! - memory is bounded: one event's data and any single line may not exceed the bound
//!   given to [`SseParser::new`] (see there). Going over is an error, before the bytes
//!   are buffered;
//! - an `id` longer than 1024 bytes is ignored (like an `id` containing NUL): every
//!   event carries a copy of the last event ID, so a huge ID followed by many tiny
//!   events would multiply memory. Real IDs are short; MCP 2026-07-28 does not use them.
//!
//! After an error the parser stays failed: every later [`SseParser::feed`] returns the
//! same error.
//!
//! Speed: line breaks are found with `memchr` (SIMD where the target has it), bytes are
//! copied at most once into the line buffer and once into the data buffer, and buffered
//! bytes are never scanned again.

// `Error`, the crate's one error type, is large (at least 128 bytes); boxing it is a
// crate-wide choice, not this module's.
#![allow(clippy::result_large_err)]

use crate::error::Error;
use std::mem;

/// The default bound on one event's data (and on one line): 16 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Room a line may take beyond `max_event_bytes`: the longest known field name plus
/// `": "` (`retry: `, `event: `). It lets `data: <exactly max_event_bytes bytes>` through.
const LINE_OVERHEAD: usize = 7;

/// Longer `id` values are ignored (see the module docs).
const MAX_ID_BYTES: usize = 1024;

/// A line buffer that grew beyond this is released after use rather than kept.
const KEEP_CAPACITY: usize = 64 * 1024;

/// The UTF-8 byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type from the `event` field; `None` means the default type `"message"`.
    /// An explicit `event: message` is kept as `Some("message")`.
    pub event: Option<String>,
    /// The data lines joined with `"\n"` (the final line break removed).
    pub data: String,
    /// The stream's last event ID when the event was dispatched (set by an `id` field in
    /// this or an earlier event); `None` when it is empty.
    pub id: Option<String>,
    /// The stream's reconnection time in milliseconds when the event was dispatched (set
    /// by a `retry` field in this or an earlier event), if any was ever set.
    pub retry: Option<u64>,
}

/// The parser's state for one stream. Feed it chunks with [`SseParser::feed`], end the
/// stream with [`SseParser::finish`].
#[derive(Clone, Debug)]
pub struct SseParser {
    max_event_bytes: usize,
    /// The unterminated line carried over from earlier chunks; never holds CR or LF.
    line: Vec<u8>,
    /// The data buffer: each `data` value followed by `"\n"`.
    data: String,
    /// The event type buffer.
    event_type: String,
    /// The last event ID buffer (set by `id`, committed on the next empty line).
    id_buffer: String,
    /// The last event ID string (committed).
    last_event_id: String,
    /// The reconnection time.
    retry: Option<u64>,
    /// True until the stream's first bytes have shown whether it starts with a BOM.
    at_start: bool,
    /// How many BOM bytes were matched so far while `at_start`.
    bom_seen: usize,
    /// The last chunk ended with CR: an LF at the start of the next chunk is the same
    /// line break.
    after_cr: bool,
    /// Set once a feed failed; the parser is unusable afterwards.
    error: Option<Error>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser for one stream. `max_event_bytes` bounds the data of one event (the
    /// dispatched `data`, line breaks included) and the length of any single line
    /// (which may additionally hold the field name: `max_event_bytes + 7` bytes).
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            line: Vec::new(),
            data: String::new(),
            event_type: String::new(),
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry: None,
            at_start: true,
            bom_seen: 0,
            after_cr: false,
            error: None,
        }
    }

    /// Feeds one chunk; pushes complete events to `out`.
    ///
    /// Events completed before a malformed line are still pushed to `out`; the error
    /// ([`ErrorKind::Protocol`](crate::error::ErrorKind::Protocol)) is returned then, and
    /// by every later call.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), Error> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let result = self.feed_inner(chunk, out);
        if let Err(e) = &result {
            self.fail(e.clone());
        }
        result
    }

    /// End of stream: the incomplete event, if any, is discarded (WHATWG: a stream that
    /// ends before the final empty line does not dispatch its last event). Returns true
    /// if bytes or an event were pending and have been dropped (for diagnostics).
    ///
    /// The line and event state is reset so the parser can read a following stream;
    /// [`last_event_id`](Self::last_event_id) and [`retry_ms`](Self::retry_ms) are kept.
    /// After an error, returns false (the error was already reported).
    pub fn finish(&mut self) -> bool {
        let dropped =
            !self.line.is_empty() || !self.data.is_empty() || (self.at_start && self.bom_seen > 0);
        self.line.clear();
        if self.line.capacity() > KEEP_CAPACITY {
            self.line = Vec::new();
        }
        self.data = String::new();
        self.event_type.clear();
        self.id_buffer.clone_from(&self.last_event_id);
        self.at_start = true;
        self.bom_seen = 0;
        self.after_cr = false;
        dropped && self.error.is_none()
    }

    /// The last event ID of the stream (as of the last empty line), if not empty.
    pub fn last_event_id(&self) -> Option<&str> {
        (!self.last_event_id.is_empty()).then_some(self.last_event_id.as_str())
    }

    /// The reconnection time in milliseconds, if a valid `retry` field was seen.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry
    }

    fn line_limit(&self) -> usize {
        self.max_event_bytes.saturating_add(LINE_OVERHEAD)
    }

    fn line_too_long(&self) -> Error {
        Error::protocol(format!(
            "SSE line longer than {} bytes (event bound {} bytes)",
            self.line_limit(),
            self.max_event_bytes
        ))
    }

    fn fail(&mut self, e: Error) {
        self.error = Some(e);
        self.line = Vec::new();
        self.data = String::new();
        self.event_type = String::new();
    }

    fn feed_inner(&mut self, mut input: &[u8], out: &mut Vec<SseEvent>) -> Result<(), Error> {
        if self.at_start {
            input = self.skip_bom(input);
            if self.at_start {
                // Every byte so far may still be a BOM; nothing else to do.
                return Ok(());
            }
        }
        if self.after_cr && !input.is_empty() {
            self.after_cr = false;
            if let Some(rest) = input.strip_prefix(b"\n") {
                input = rest;
            }
        }
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', input) {
            // `pos < input.len()`, so both parts exist; the fallback is never taken.
            let (head, tail) = input.split_at_checked(pos).unwrap_or((input, &[]));
            let Some((&term, mut rest)) = tail.split_first() else {
                break;
            };
            if term == b'\r' {
                match rest.split_first() {
                    Some((b'\n', after)) => rest = after,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            self.take_line(head, out)?;
            input = rest;
        }
        if !input.is_empty() {
            if self.line.len().saturating_add(input.len()) > self.line_limit() {
                return Err(self.line_too_long());
            }
            self.line.extend_from_slice(input);
        }
        Ok(())
    }

    /// Consumes a BOM (possibly split over chunks) at the start of the stream. Bytes held
    /// back that turn out not to be a BOM become the start of the first line.
    fn skip_bom<'a>(&mut self, mut input: &'a [u8]) -> &'a [u8] {
        while let Some((&b, rest)) = input.split_first() {
            if BOM.get(self.bom_seen) == Some(&b) {
                self.bom_seen += 1;
                input = rest;
                if self.bom_seen == BOM.len() {
                    self.at_start = false;
                    self.bom_seen = 0;
                    return input;
                }
            } else {
                self.line
                    .extend_from_slice(BOM.get(..self.bom_seen).unwrap_or_default());
                self.at_start = false;
                self.bom_seen = 0;
                return input;
            }
        }
        input
    }

    /// A line ended in this chunk: `head` is its part in this chunk, `self.line` the
    /// part carried over from earlier chunks.
    fn take_line(&mut self, head: &[u8], out: &mut Vec<SseEvent>) -> Result<(), Error> {
        if self.line.is_empty() {
            if head.len() > self.line_limit() {
                return Err(self.line_too_long());
            }
            return self.process_line(head, out);
        }
        if self.line.len().saturating_add(head.len()) > self.line_limit() {
            return Err(self.line_too_long());
        }
        let mut line = mem::take(&mut self.line);
        line.extend_from_slice(head);
        let result = self.process_line(&line, out);
        line.clear();
        if line.capacity() <= KEEP_CAPACITY {
            self.line = line;
        }
        result
    }

    /// One complete line (without its line break).
    fn process_line(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), Error> {
        let line = std::str::from_utf8(bytes).map_err(|e| {
            Error::protocol(format!(
                "SSE stream is not valid UTF-8 (invalid byte at offset {} of a line)",
                e.valid_up_to()
            ))
        })?;
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let (field, value) = match crate::text::split_once(line, ":") {
            // A line starting with ':' is a comment.
            Some(("", _)) => return Ok(()),
            // One space after the colon is not part of the value.
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            // No colon: the whole line is the field name, the value is empty.
            None => (line, ""),
        };
        match field {
            "data" => {
                // The dispatched data is the buffer plus this value (the buffer's
                // trailing "\n" stands for the separator before it).
                if self.data.len().saturating_add(value.len()) > self.max_event_bytes {
                    return Err(Error::protocol(format!(
                        "SSE event data longer than {} bytes",
                        self.max_event_bytes
                    )));
                }
                self.data.reserve(value.len() + 1);
                self.data.push_str(value);
                self.data.push('\n');
            }
            "event" => {
                self.event_type.clear();
                self.event_type.push_str(value);
            }
            // WHATWG: an id containing NULL is ignored. Ours: so is an overlong one.
            "id" if !value.as_bytes().contains(&0) && value.len() <= MAX_ID_BYTES => {
                self.id_buffer.clear();
                self.id_buffer.push_str(value);
            }
            // WHATWG: only ASCII digits; anything else (or an overflow) is ignored.
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Some(ms) = crate::text::digits(value) {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The empty line: commit the last event ID, then emit the event if it has data.
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.last_event_id != self.id_buffer {
            self.last_event_id.clone_from(&self.id_buffer);
        }
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        self.data.pop(); // the "\n" after the last data line
        let data = mem::take(&mut self.data);
        let event = (!self.event_type.is_empty()).then(|| mem::take(&mut self.event_type));
        out.push(SseEvent {
            event,
            data,
            id: self.last_event_id().map(str::to_owned),
            retry: self.retry,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn ev(event: Option<&str>, data: &str, id: Option<&str>, retry: Option<u64>) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
            id: id.map(str::to_owned),
            retry,
        }
    }

    fn msg(data: &str) -> SseEvent {
        ev(None, data, None, None)
    }

    /// Everything observable about parsing one stream.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        events: Vec<SseEvent>,
        error: Option<Error>,
        dropped: bool,
        last_event_id: Option<String>,
        retry: Option<u64>,
    }

    fn run<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
        let mut p = SseParser::new(max);
        let mut events = Vec::new();
        let mut error = None;
        for chunk in chunks {
            if let Err(e) = p.feed(chunk, &mut events) {
                error = Some(e);
                break;
            }
        }
        let dropped = p.finish();
        Outcome {
            events,
            error,
            dropped,
            last_event_id: p.last_event_id().map(str::to_owned),
            retry: p.retry_ms(),
        }
    }

    /// Parses `stream` whole, split in two at every byte boundary, and byte by byte;
    /// all must agree. Returns the outcome.
    fn check_with(max: usize, stream: &[u8]) -> Outcome {
        let whole = run(max, [stream]);
        for i in 0..=stream.len() {
            let (a, b) = stream.split_at(i);
            assert_eq!(run(max, [a, b]), whole, "split at {i} of {stream:?}");
        }
        assert_eq!(
            run(max, stream.chunks(1)),
            whole,
            "byte by byte: {stream:?}"
        );
        whole
    }

    /// [`check_with`] with the default bound, for streams that must parse cleanly.
    fn check(stream: &str) -> Vec<SseEvent> {
        let o = check_with(DEFAULT_MAX_EVENT_BYTES, stream.as_bytes());
        assert_eq!(o.error, None, "{stream:?}");
        o.events
    }

    // --- the examples of the WHATWG specification -------------------------------------

    #[test]
    fn whatwg_three_messages() {
        let s = "data: This is the first message.\n\n\
                 data: This is the second message, it\n\
                 data: has two lines.\n\n\
                 data: This is the third message.\n\n";
        assert_eq!(
            check(s),
            [
                msg("This is the first message."),
                msg("This is the second message, it\nhas two lines."),
                msg("This is the third message."),
            ]
        );
    }

    #[test]
    fn whatwg_event_types() {
        let s = "event: add\ndata: 73857293\n\n\
                 event: remove\ndata: 2153\n\n\
                 event: add\ndata: 113411\n\n";
        assert_eq!(
            check(s),
            [
                ev(Some("add"), "73857293", None, None),
                ev(Some("remove"), "2153", None, None),
                ev(Some("add"), "113411", None, None),
            ]
        );
    }

    #[test]
    fn whatwg_stock_ticker() {
        assert_eq!(
            check("data: YHOO\ndata: +2\ndata: 10\n\n"),
            [msg("YHOO\n+2\n10")]
        );
    }

    #[test]
    fn whatwg_comment_and_ids() {
        let s = ": test stream\n\n\
                 data: first event\nid: 1\n\n\
                 data:second event\nid\n\n\
                 data:  third event\n\n";
        let o = check_with(DEFAULT_MAX_EVENT_BYTES, s.as_bytes());
        assert_eq!(
            o.events,
            [
                ev(None, "first event", Some("1"), None),
                msg("second event"),
                msg(" third event"),
            ]
        );
        assert_eq!(o.last_event_id, None);
        assert!(!o.dropped);
    }

    #[test]
    fn whatwg_empty_data() {
        // The last block is discarded: it is not followed by a blank line.
        let o = check_with(DEFAULT_MAX_EVENT_BYTES, b"data\n\ndata\ndata\n\ndata:");
        assert_eq!(o.events, [msg(""), msg("\n")]);
        assert!(o.dropped);
        let o = check_with(DEFAULT_MAX_EVENT_BYTES, b"data\n\ndata\ndata\n\ndata:\n");
        assert_eq!(o.events, [msg(""), msg("\n")]);
        assert!(o.dropped);
    }

    #[test]
    fn whatwg_space_after_colon() {
        assert_eq!(
            check("data:test\n\ndata: test\n\n"),
            [msg("test"), msg("test")]
        );
    }

    // --- line breaks --------------------------------------------------------------------

    #[test]
    fn lf_cr_crlf_and_mixtures_agree() {
        let lines = [
            ": hello",
            "event: progress",
            "data: {\"a\":1}",
            "data: second",
            "",
            "id: 5",
            "data: x",
            "",
            "",
        ];
        let expected = [
            ev(Some("progress"), "{\"a\":1}\nsecond", None, None),
            ev(None, "x", Some("5"), None),
        ];
        for term in ["\n", "\r", "\r\n"] {
            let s: String = lines.iter().map(|l| format!("{l}{term}")).collect();
            assert_eq!(check(&s), expected, "{term:?}");
        }
        for offset in 0..3 {
            let terms = ["\n", "\r", "\r\n"];
            let s: String = lines
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{l}{}", terms[(i + offset) % 3]))
                .collect();
            assert_eq!(check(&s), expected, "{s:?}");
        }
    }

    #[test]
    fn cr_then_lf_in_the_next_chunk_is_one_line_break() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        p.feed(b"data: a\r", &mut out).unwrap();
        p.feed(b"\ndata: b\r", &mut out).unwrap();
        assert!(out.is_empty());
        p.feed(b"\n", &mut out).unwrap();
        p.feed(b"", &mut out).unwrap();
        p.feed(b"\r", &mut out).unwrap();
        // The CR ends the blank line at once; no need to wait for a possible LF.
        assert_eq!(out, [msg("a\nb")]);
        p.feed(b"\n\n", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert!(!p.finish());
    }

    #[test]
    fn cr_cr_is_two_line_breaks() {
        assert_eq!(check("data: a\r\rdata: b\n\r\n"), [msg("a"), msg("b")]);
        assert_eq!(check("data: a\n\rdata: b\r\n\r"), [msg("a"), msg("b")]);
    }

    // --- fields -------------------------------------------------------------------------

    #[test]
    fn comments_and_keep_alives_are_ignored() {
        let s = ":\n: ping\r\n:keep-alive\rdata: x\n:comment inside\ndata: y\n\n:\n\n:bye\n";
        assert_eq!(check(s), [msg("x\ny")]);
    }

    #[test]
    fn colon_space_and_field_rules() {
        assert_eq!(check("data: a:b: c\n\n"), [msg("a:b: c")]);
        assert_eq!(check("data:  two\n\n"), [msg(" two")]);
        assert_eq!(check("data:\tt\n\n"), [msg("\tt")]);
        // Unknown and wrongly cased fields are ignored; "data" without colon is empty data.
        assert_eq!(check("foo: bar\nDATA: x\nData\ndata\n\n"), [msg("")]);
        assert_eq!(check("data \n\n"), []);
    }

    #[test]
    fn event_type_is_reset_after_each_block() {
        assert_eq!(
            check("event: a\ndata: x\n\ndata: y\n\n"),
            [ev(Some("a"), "x", None, None), msg("y")]
        );
        // A block without data dispatches nothing but still resets the type.
        assert_eq!(check("event: a\n\ndata: x\n\n"), [msg("x")]);
        // The last event field of a block wins.
        assert_eq!(
            check("event: a\nevent: b\ndata: x\n\n"),
            [ev(Some("b"), "x", None, None)]
        );
        assert_eq!(check("event:\ndata: x\n\n"), [msg("x")]);
    }

    #[test]
    fn blocks_without_data_are_not_dispatched() {
        let o = check_with(
            DEFAULT_MAX_EVENT_BYTES,
            b"event: x\nid: 3\nretry: 10\n\n\n\n: c\n\n",
        );
        assert_eq!(o.events, []);
        assert_eq!(o.last_event_id.as_deref(), Some("3"));
        assert_eq!(o.retry, Some(10));
        assert!(!o.dropped);
    }

    #[test]
    fn id_with_nul_is_ignored() {
        assert_eq!(
            check("id: 1\n\nid: a\0b\ndata: x\n\n"),
            [ev(None, "x", Some("1"), None)]
        );
    }

    #[test]
    fn overlong_id_is_ignored() {
        let ok = "i".repeat(MAX_ID_BYTES);
        let long = "j".repeat(MAX_ID_BYTES + 1);
        let s = format!("id: {ok}\ndata: a\n\nid: {long}\ndata: b\n\n");
        assert_eq!(
            check(&s),
            [
                ev(None, "a", Some(&ok), None),
                ev(None, "b", Some(&ok), None)
            ]
        );
    }

    #[test]
    fn id_is_committed_on_the_empty_line_and_persists() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        p.feed(b"id: 9\n", &mut out).unwrap();
        assert_eq!(p.last_event_id(), None);
        p.feed(b"\n", &mut out).unwrap();
        assert_eq!(p.last_event_id(), Some("9"));
        p.feed(b"data: a\n\nid\ndata: b\n\n", &mut out).unwrap();
        assert_eq!(out, [ev(None, "a", Some("9"), None), msg("b")]);
        assert_eq!(p.last_event_id(), None);
    }

    #[test]
    fn retry_takes_only_ascii_digits() {
        let o = check_with(
            DEFAULT_MAX_EVENT_BYTES,
            b"retry: 1500\ndata: a\n\n\
              retry: 15x\nretry:\nretry: -1\nretry:  5\nretry: +5\n\
              retry: 99999999999999999999999\nretry: \xd9\xa3\ndata: b\n\n\
              retry:0\ndata: c\n\n",
        );
        assert_eq!(
            o.events,
            [
                ev(None, "a", None, Some(1500)),
                ev(None, "b", None, Some(1500)),
                ev(None, "c", None, Some(0)),
            ]
        );
        assert_eq!(o.retry, Some(0));
    }

    #[test]
    fn bom_is_skipped_once_at_stream_start() {
        assert_eq!(check("\u{feff}data: x\n\n"), [msg("x")]);
        // A second BOM is part of the first line's field name: unknown field.
        assert_eq!(check("\u{feff}\u{feff}data: x\n\ndata: y\n\n"), [msg("y")]);
        // Not at the start: part of the line.
        assert_eq!(check("data: x\n\n\u{feff}data: y\n\n"), [msg("x")]);
        assert_eq!(check("data: \u{feff}x\n\n"), [msg("\u{feff}x")]);
        // U+FEC0 starts like a BOM (EF BB ..); its bytes must be kept.
        assert_eq!(check("\u{fec0}\ndata: y\n\n"), [msg("y")]);
        assert_eq!(check("\u{fec0}: z\ndata: y\n\n"), [msg("y")]);
        // A lone partial BOM followed by ASCII is invalid UTF-8.
        let o = check_with(1024, b"\xef\xbbdata: x\n\n");
        assert_eq!(o.error.map(|e| e.kind), Some(ErrorKind::Protocol));
        let o = check_with(1024, b"\xef\xbb");
        assert!(o.dropped);
    }

    #[test]
    fn empty_stream_and_empty_chunks() {
        let o = check_with(1024, b"");
        assert_eq!(o.events, []);
        assert!(!o.dropped);
        let o = run(
            1024,
            [&b""[..], b"da", b"", b"ta: x\r", b"", b"\n", b"", b"\n"],
        );
        assert_eq!(o.events, [msg("x")]);
    }

    // --- bounds and errors --------------------------------------------------------------

    #[test]
    fn event_at_the_bound_passes_one_byte_over_fails() {
        let max = 16;
        let exact = format!("data: {}\n\n", "a".repeat(max));
        let o = check_with(max, exact.as_bytes());
        assert_eq!(o.error, None);
        assert_eq!(o.events, [msg(&"a".repeat(max))]);

        let over = format!("data: {}\n\n", "a".repeat(max + 1));
        let o = check_with(max, over.as_bytes());
        let e = o.error.expect("over the bound");
        assert_eq!(e.kind, ErrorKind::Protocol);
        assert!(e.message.contains("16"), "{}", e.message);
        assert_eq!(o.events, []);

        // Multi-line data: the line breaks count.
        let exact = "data: aaaaaaa\ndata: bbbbbbbb\n\n"; // 7 + 1 + 8 = 16
        let o = check_with(max, exact.as_bytes());
        assert_eq!(o.events, [msg("aaaaaaa\nbbbbbbbb")]);
        let over = "data: aaaaaaa\ndata: bbbbbbbbb\n\n";
        let o = check_with(max, over.as_bytes());
        assert_eq!(o.error.map(|e| e.kind), Some(ErrorKind::Protocol));

        // Many empty data lines count their line breaks too.
        let o = check_with(3, b"data\ndata\ndata\ndata\n\n");
        assert_eq!(o.events, [msg("\n\n\n")]);
        let o = check_with(3, b"data\ndata\ndata\ndata\ndata\n\n");
        assert!(o.error.is_some());
    }

    #[test]
    fn bound_is_per_event() {
        let max = 8;
        let s = "data: 12345678\n\ndata: 12345678\n\n".repeat(3);
        let o = check_with(max, s.as_bytes());
        assert_eq!(o.error, None);
        assert_eq!(o.events.len(), 6);
    }

    #[test]
    fn long_lines_fail_whatever_the_field() {
        let max = 16;
        let ok = format!(":{}\ndata: x\n\n", "c".repeat(max + LINE_OVERHEAD - 1));
        assert_eq!(check_with(max, ok.as_bytes()).events, [msg("x")]);
        let long = format!(":{}\ndata: x\n\n", "c".repeat(max + LINE_OVERHEAD));
        let o = check_with(max, long.as_bytes());
        assert_eq!(o.error.map(|e| e.kind), Some(ErrorKind::Protocol));
        assert_eq!(o.events, []);
    }

    #[test]
    fn huge_line_without_newline_fails_without_growing() {
        let max = 1000;
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        p.feed(b"data: x\n\ndata: ", &mut out).unwrap();
        let chunk = [b'a'; 100];
        let mut failed = None;
        for i in 0..1000 {
            match p.feed(&chunk, &mut out) {
                Ok(()) => assert!(p.line.len() <= max + LINE_OVERHEAD),
                Err(e) => {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        let (i, e) = failed.expect("the bound must stop the line");
        assert_eq!(i, 10);
        assert_eq!(e.kind, ErrorKind::Protocol);
        assert!(e.message.contains("1000"), "{}", e.message);
        assert_eq!(p.line.capacity(), 0, "buffers are released on error");
        assert_eq!(out, [msg("x")]);
        // The error is sticky.
        assert_eq!(p.feed(b"\n\ndata: y\n\n", &mut out), Err(e.clone()));
        assert_eq!(out.len(), 1);
        assert!(!p.finish());
        assert_eq!(p.feed(b"data: y\n\n", &mut out), Err(e));

        // One big chunk without a line break is refused before it is buffered.
        let mut p = SseParser::new(max);
        assert!(p.feed(&vec![b'a'; 10 * max], &mut out).is_err());
        assert_eq!(p.line.capacity(), 0);
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        for bad in [
            &b"data: \xff\n\n"[..],
            b"data: \xc3\n\n",
            b"data: \xed\xa0\x80\n\n", // a surrogate
            b": \xfe comment\n",
            b"ev\xc3\x28nt: x\n",
        ] {
            let o = check_with(1024, bad);
            let e = o.error.expect("invalid UTF-8");
            assert_eq!(e.kind, ErrorKind::Protocol);
            assert!(e.message.contains("UTF-8"));
        }
        // Events before the bad line are delivered.
        let o = check_with(1024, b"data: a\n\ndata: \xff\n\ndata: b\n\n");
        assert_eq!(o.events, [msg("a")]);
        assert!(o.error.is_some());
        // Multi-byte characters split across chunks are fine (check splits everywhere).
        assert_eq!(check("data: 世界 é 😀\n\n"), [msg("世界 é 😀")]);
    }

    #[test]
    fn finish_reports_dropped_input_and_resets() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        assert!(!p.finish());
        p.feed(b"id: 1\ndata: a\n\ndata: b\n", &mut out).unwrap();
        assert!(p.finish(), "an event without its empty line is dropped");
        assert_eq!(p.last_event_id(), Some("1"));
        // The next stream starts fresh (its BOM is skipped) and keeps the last event ID.
        p.feed(b"\xef\xbb\xbfdata: c\n\n", &mut out).unwrap();
        assert_eq!(
            out,
            [
                ev(None, "a", Some("1"), None),
                ev(None, "c", Some("1"), None)
            ]
        );
        p.feed(b"data: partial", &mut out).unwrap();
        assert!(p.finish(), "a line without its line break is dropped");
        p.feed(b"\n", &mut out).unwrap();
        assert!(!p.finish());
        assert_eq!(out.len(), 2);
    }

    // --- chunking properties -------------------------------------------------------------

    /// splitmix64: a small deterministic PRNG for the property tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    /// A random event stream mixing every feature, with random line breaks.
    fn generate(rng: &mut Rng) -> String {
        const PAYLOADS: [&str; 11] = [
            "",
            "x",
            " lead",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
            "a:b",
            "世界",
            "é😀",
            "  two",
            "\tt",
            "\u{feff}",
            "trail ",
        ];
        const TERMS: [&str; 3] = ["\n", "\r", "\r\n"];
        let mut s = String::new();
        if rng.below(4) == 0 {
            s.push('\u{feff}');
        }
        for _ in 0..rng.below(60) {
            let line = match rng.below(14) {
                0..=3 => format!("data: {}", rng.pick(&PAYLOADS)),
                4 => format!("data:{}", rng.pick(&PAYLOADS)),
                5 => "data".to_owned(),
                6 => format!("event: {}", rng.pick(&["progress", "message", "", "é"])),
                7 => format!("id: {}", rng.pick(&PAYLOADS)),
                8 => "id: a\0b".to_owned(),
                9 => format!("retry: {}", rng.below(100_000)),
                10 => rng
                    .pick(&["retry: 1x", "retry:", ": keep-alive", ":", "foo: bar"])
                    .to_owned(),
                _ => String::new(),
            };
            s.push_str(&line);
            s.push_str(rng.pick(&TERMS));
        }
        if rng.below(3) == 0 {
            s.push_str("data: unterminated");
        }
        s
    }

    /// A plain, obviously correct implementation of the WHATWG rules on a whole stream.
    fn reference(stream: &str) -> Vec<SseEvent> {
        let text = stream.strip_prefix('\u{feff}').unwrap_or(stream);
        let mut lines = Vec::new();
        let mut cur = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    lines.push(mem::take(&mut cur));
                }
                '\n' => lines.push(mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        let (mut data, mut ty, mut id_buf) = (String::new(), String::new(), String::new());
        let mut retry = None;
        let mut events = Vec::new();
        for line in lines {
            if line.is_empty() {
                if data.is_empty() {
                    ty.clear();
                    continue;
                }
                data.pop();
                events.push(SseEvent {
                    event: (!ty.is_empty()).then(|| mem::take(&mut ty)),
                    data: mem::take(&mut data),
                    id: (!id_buf.is_empty()).then(|| id_buf.clone()),
                    retry,
                });
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.find(':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(' ').unwrap_or(v))
                }
                None => (&line[..], ""),
            };
            match field {
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                }
                "event" => ty = value.to_owned(),
                "id" if !value.as_bytes().contains(&0) => id_buf = value.to_owned(),
                "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                    retry = crate::text::digits(value).or(retry);
                }
                _ => {}
            }
        }
        events
    }

    /// Splits `bytes` into random chunks (empty ones included).
    fn random_chunks<'a>(rng: &mut Rng, bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let mut chunks = Vec::new();
        let mut rest = bytes;
        let max_len = 1 + rng.below(24);
        while !rest.is_empty() {
            let n = rng.below(max_len + 1).min(rest.len());
            let (a, b) = rest.split_at(n);
            chunks.push(a);
            rest = b;
        }
        chunks
    }

    #[test]
    fn random_streams_and_random_chunkings_match_the_reference() {
        let mut rng = Rng(0x5eed);
        for round in 0..400 {
            let stream = generate(&mut rng);
            let expected = reference(&stream);
            let whole = run(DEFAULT_MAX_EVENT_BYTES, [stream.as_bytes()]);
            assert_eq!(whole.error, None);
            assert_eq!(whole.events, expected, "round {round}: {stream:?}");
            assert_eq!(
                run(DEFAULT_MAX_EVENT_BYTES, stream.as_bytes().chunks(1)),
                whole
            );
            for _ in 0..20 {
                let chunks = random_chunks(&mut rng, stream.as_bytes());
                assert_eq!(
                    run(DEFAULT_MAX_EVENT_BYTES, chunks.iter().copied()),
                    whole,
                    "round {round}: {chunks:?}"
                );
            }
        }
    }

    #[test]
    fn random_streams_split_at_every_boundary() {
        let mut rng = Rng(42);
        for _ in 0..20 {
            let stream = generate(&mut rng);
            check_with(DEFAULT_MAX_EVENT_BYTES, stream.as_bytes());
            // With a tight bound some streams fail; the failure must not depend on chunking.
            check_with(12, stream.as_bytes());
        }
    }

    #[test]
    fn random_bytes_never_panic_and_do_not_depend_on_chunking() {
        // Bytes biased towards what matters to the parser, invalid UTF-8 included.
        const ALPHABET: &[u8] = b"\r\n\r\n: data:id\0retry9event x\xef\xbb\xbf\xc3\xa9\xff";
        let mut rng = Rng(7);
        for _ in 0..300 {
            let len = rng.below(64);
            let bytes: Vec<u8> = (0..len)
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let max = rng.below(20);
            let whole = run(max, [&bytes[..]]);
            assert_eq!(run(max, bytes.chunks(1)), whole, "{bytes:?}");
            for _ in 0..10 {
                let chunks = random_chunks(&mut rng, &bytes);
                assert_eq!(run(max, chunks.iter().copied()), whole, "{chunks:?}");
            }
        }
    }

    /// Throughput on mixed events; run with
    /// `cargo test --release --lib sse::tests::throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn throughput() {
        for big_every in [0, 10] {
            let mut stream = String::new();
            for i in 0..1000 {
                stream.push_str(": keep-alive\n\n");
                stream.push_str("event: message\r\n");
                stream.push_str(&format!(
                    "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{i},\"total\":1000,\"message\":\"step {i} — 世界\"}}}}\n\n"
                ));
                if big_every > 0 && i % big_every == 0 {
                    let big = "x".repeat(20_000);
                    stream.push_str(&format!(
                        "id: {i}\ndata: {{\"text\":\"{big}\"}}\ndata: more\n\n"
                    ));
                }
            }
            let bytes = stream.as_bytes();
            let rounds = 200;
            let mut events = Vec::new();
            let mut n = 0;
            let start = std::time::Instant::now();
            for _ in 0..rounds {
                let mut p = SseParser::default();
                for chunk in bytes.chunks(16 * 1024) {
                    p.feed(chunk, &mut events).unwrap();
                }
                n += events.len();
                events.clear();
            }
            let secs = start.elapsed().as_secs_f64();
            let total = rounds * bytes.len();
            println!(
                "large events every {big_every}: {} MB, {n} events in {secs:.3}s: {:.0} MB/s",
                total / 1_000_000,
                total as f64 / secs / 1e6
            );
        }
    }
}
