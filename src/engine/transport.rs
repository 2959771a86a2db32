//! How the client talks to the server, as the host sees it (`McpClient.era`,
//! `McpClient.transport`): typed here, spelt once.

use crate::engine::shared::Era;

/// How the 2024-11-05 HTTP+SSE stream is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SseReader {
    /// The platform's `EventSource` (no custom headers).
    EventSource,
    /// `fetch` and a stream reader (when headers are needed or `EventSource` is missing).
    Fetch,
}

/// The transport in use.
#[cfg_attr(not(feature = "legacy"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// Streamable HTTP (2025-03-26 and later).
    StreamableHttp,
    /// HTTP+SSE (2024-11-05), read as it was.
    HttpSse(SseReader),
}

impl Transport {
    /// The transport of `era`; for HTTP+SSE, `reader` says how the stream was read
    /// (`None`: not opened with an `EventSource`, so it is read with `fetch`).
    pub(crate) fn of(era: &Era, reader: Option<SseReader>) -> Transport {
        match era {
            #[cfg(feature = "legacy")]
            Era::HttpSse => Transport::HttpSse(reader.unwrap_or(SseReader::Fetch)),
            #[cfg(feature = "legacy")]
            Era::Legacy => Transport::StreamableHttp,
            Era::Modern => {
                let _ = reader;
                Transport::StreamableHttp
            }
        }
    }

    /// The name the host sees.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Transport::StreamableHttp => "streamable-http",
            Transport::HttpSse(SseReader::EventSource) => "http+sse (EventSource)",
            Transport::HttpSse(SseReader::Fetch) => "http+sse (fetch)",
        }
    }
}

/// The name of an era the host sees: `modern` (2026-07-28), `legacy` (2025 Streamable
/// HTTP) or `http+sse` (2024-11-05).
pub(crate) fn era_name(era: &Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        #[cfg(feature = "legacy")]
        Era::Legacy => "legacy",
        #[cfg(feature = "legacy")]
        Era::HttpSse => "http+sse",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "legacy")]
    fn names() {
        let t = |e: &Era, r| Transport::of(e, r).as_str();
        assert_eq!(t(&Era::Modern, None), "streamable-http");
        assert_eq!(
            t(&Era::Legacy, Some(SseReader::EventSource)),
            "streamable-http"
        );
        assert_eq!(t(&Era::HttpSse, None), "http+sse (fetch)");
        assert_eq!(t(&Era::HttpSse, Some(SseReader::Fetch)), "http+sse (fetch)");
        assert_eq!(
            t(&Era::HttpSse, Some(SseReader::EventSource)),
            "http+sse (EventSource)"
        );
        assert_eq!(era_name(&Era::Modern), "modern");
        assert_eq!(era_name(&Era::Legacy), "legacy");
        assert_eq!(era_name(&Era::HttpSse), "http+sse");
    }
}
