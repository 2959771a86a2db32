//! `json!`: a [`Value`](crate::json::Value) written as JSON in Rust, with the syntax of
//! serde_json's `json!`: `json!({"a": [1, null, x], "b": {"c": y.len()}})`. A leaf that is
//! not `null`, `true`, `false`, an array or an object is an expression, converted by
//! reference through [`ToValue`](crate::json::ToValue); a key is any expression up to its
//! `:` that converts into a `String`.
//!
//! Written here, not serde_json's: that one builds serde_json's `Value`. The token-munching
//! rules below read the tokens from left to right: an object's key up to its `:`, then one
//! value up to the next top-level `,`.

/// A JSON [`Value`](crate::json::Value) written as JSON (see the module's comment).
#[macro_export]
macro_rules! json {
    (null) => {
        $crate::json::Value::Null
    };
    (true) => {
        $crate::json::Value::Bool(true)
    };
    (false) => {
        $crate::json::Value::Bool(false)
    };
    ([]) => {
        $crate::json::Value::Array(::std::vec::Vec::new())
    };
    ([ $($tt:tt)+ ]) => {
        $crate::json::Value::Array($crate::json_munch!(@array [] $($tt)+))
    };
    ({}) => {
        $crate::json::Value::Object($crate::json::Map::new())
    };
    ({ $($tt:tt)+ }) => {{
        let mut object = $crate::json::Map::new();
        $crate::json_munch!(@object object ($($tt)+));
        $crate::json::Value::Object(object)
    }};
    ($other:expr) => {
        $crate::json::ToValue::to_value(&$other)
    };
}

/// The rules behind [`json!`]; not for use on its own.
#[macro_export]
#[doc(hidden)]
macro_rules! json_munch {
    // An array's items: `[done items,]` then the tokens left.
    (@array [$($done:expr,)*]) => {
        ::std::vec![$($done,)*]
    };
    (@array [$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!(null),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] true $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!(true),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] false $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!(false),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] [$($inner:tt)*] $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!([$($inner)*]),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!({$($inner)*}),] $($($rest)*)?)
    };
    (@array [$($done:expr,)*] $next:expr $(, $($rest:tt)*)?) => {
        $crate::json_munch!(@array [$($done,)* $crate::json!($next),] $($($rest)*)?)
    };

    // An object's members, inserted into `$m`: first the key's tokens up to `:`.
    (@object $m:ident ()) => {};
    (@object $m:ident ($($rest:tt)+)) => {
        $crate::json_munch!(@key $m () ($($rest)+))
    };
    (@key $m:ident ($($key:tt)+) (: $($rest:tt)*)) => {
        $crate::json_munch!(@value $m ($($key)+) ($($rest)*))
    };
    (@key $m:ident ($($key:tt)*) ($next:tt $($rest:tt)*)) => {
        $crate::json_munch!(@key $m ($($key)* $next) ($($rest)*))
    };
    // Then one value, up to the next `,`.
    (@value $m:ident ($($key:tt)+) (null $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!(null)) ($($($rest)*)?))
    };
    (@value $m:ident ($($key:tt)+) (true $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!(true)) ($($($rest)*)?))
    };
    (@value $m:ident ($($key:tt)+) (false $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!(false)) ($($($rest)*)?))
    };
    (@value $m:ident ($($key:tt)+) ([$($inner:tt)*] $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!([$($inner)*])) ($($($rest)*)?))
    };
    (@value $m:ident ($($key:tt)+) ({$($inner:tt)*} $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!({$($inner)*})) ($($($rest)*)?))
    };
    (@value $m:ident ($($key:tt)+) ($value:expr $(, $($rest:tt)*)?)) => {
        $crate::json_munch!(@insert $m ($($key)+) ($crate::json!($value)) ($($($rest)*)?))
    };
    (@insert $m:ident ($($key:tt)+) ($value:expr) ($($rest:tt)*)) => {
        $m.insert(::std::string::String::from($($key)+), $value);
        $crate::json_munch!(@object $m ($($rest)*));
    };
}
