//! `sse`: the incremental SSE parser (`crate::sse::SseParser`) under arbitrary chunking.
//!
//! Input: `[bound][n][len_1 .. len_n][stream...]`. `bound` picks the parser's event bound
//! (tiny bounds reach the size checks); the stream is fed whole, in the chunks whose
//! lengths follow `n` (the rest is the last chunk), and, when short, byte by byte.
//!
//! Properties:
//! - never panics;
//! - the outcome (events, error or not, what `finish` reports, last event id, retry) is
//!   the same for every chunking (the module's promise);
//! - events respect the bound and the line structure (no CR in data; no CR/LF in the
//!   event type or id; ids at most 1024 bytes and without NUL);
//! - after an error every later `feed` fails too; error messages are sanitized.

use crate::util::{check_error, Reader};
use mcp_wasm_client::sse::{SseEvent, SseParser, DEFAULT_MAX_EVENT_BYTES};

#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    failed: bool,
    dropped: bool,
    last_event_id: Option<String>,
    retry: Option<u64>,
}

fn parse<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut p = SseParser::new(max);
    let mut events = Vec::new();
    let mut failed = false;
    for chunk in chunks {
        if let Err(e) = p.feed(chunk, &mut events) {
            check_error(&e);
            failed = true;
            // Failed for good.
            let mut more = Vec::new();
            assert!(p.feed(b"data: x\n\n", &mut more).is_err());
            assert!(more.is_empty());
            break;
        }
    }
    let dropped = p.finish();
    for e in &events {
        assert!(e.data.len() <= max, "event data over the bound");
        assert!(!e.data.contains('\r'));
        if let Some(t) = &e.event {
            assert!(!t.is_empty() && !t.contains(['\r', '\n']));
        }
        if let Some(id) = &e.id {
            assert!(!id.is_empty() && id.len() <= 1024);
            assert!(!id.contains(['\r', '\n', '\0']));
        }
    }
    Outcome {
        events,
        failed,
        dropped,
        last_event_id: p.last_event_id().map(str::to_owned),
        retry: p.retry_ms(),
    }
}

pub fn run(data: &[u8]) {
    let mut r = Reader::new(data);
    let b = r.u8();
    let max = match b {
        0..=127 => b as usize,
        128..=191 => (b as usize - 128) * 64,
        _ => DEFAULT_MAX_EVENT_BYTES,
    };
    let n = (r.u8() % 32) as usize;
    let lens: Vec<usize> = (0..n).map(|_| r.u8() as usize).collect();
    let stream = r.rest();

    let whole = parse(max, [stream]);

    let mut chunks = Vec::with_capacity(n + 1);
    let mut rest = stream;
    for len in lens {
        let (head, tail) = rest.split_at(len.min(rest.len()));
        chunks.push(head);
        rest = tail;
    }
    chunks.push(rest);
    let chunked = parse(max, chunks.iter().copied());
    assert_eq!(whole, chunked, "chunking changed the outcome");

    if stream.len() <= 512 {
        let bytewise = parse(max, stream.chunks(1));
        assert_eq!(whole, bytewise, "byte-by-byte feeding changed the outcome");
    }

    // The module's contract on `finish`: the parser can read a following stream, and the
    // last event id and retry survive.
    let mut p = SseParser::new(max);
    let mut events = Vec::new();
    if p.feed(stream, &mut events).is_ok() {
        p.finish();
        let (id, retry) = (p.last_event_id().map(str::to_owned), p.retry_ms());
        let mut more = Vec::new();
        if p.feed(b"data: x\n\n", &mut more).is_ok() && max >= 1 {
            assert_eq!(more.len(), 1);
            assert_eq!(more[0].id, id);
            assert_eq!(more[0].retry, retry);
        }
    }
}
