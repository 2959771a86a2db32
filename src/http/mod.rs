//! HTTP framing for Streamable HTTP (spec `basic/transports/streamable-http.mdx`), pure:
//! header value encoding, `x-mcp-header` handling, request framing and response
//! classification. No I/O happens here.

pub(crate) mod call_template;
pub mod encoding;
pub mod request;
pub(crate) mod response;
pub mod x_mcp_header;
