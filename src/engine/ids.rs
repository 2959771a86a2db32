//! The engine's ids: one newtype per kind, so that passing one kind where another is
//! expected does not compile. One counter ([`crate::engine::shared::Shared`]) issues
//! them all, so a JSON-RPC id never collides with one still in flight. The shell sees
//! the numbers (`.0`) at its boundary.

macro_rules! id {
    ($(#[$m:meta])* $vis:vis $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(pub u64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// An operation the host started (one JS call: `callTool`, `listAllTools`, `listen`, ...).
    pub OpId
);
id!(
    /// An exchange: one request in flight, as its owner names it (stable across an OAuth
    /// replay, which sends it again under a new HTTP request id).
    pub(crate) ExchangeId
);
id!(
    /// An input request handed to the host (`Action::Ask`), answered with `Core::answer`.
    pub AskId
);
id!(
    /// A step of the OAuth flow only the host can do (`AuthAction`), answered with
    /// `Core::on_auth`.
    pub AuthStepId
);
id!(
    /// A scheduled resumption of a legacy response stream (`Last-Event-ID`).
    pub(crate) ResumeId
);
