//! Why a spec does not build: the one error of the hand-written inputs
//! files are built from (`demo build` and `teehistorian build` specs in
//! RON or JSON, `packet encode`'s JSON), the way [`DecodeError`] is the
//! one error of bytes that do not decode.
//!
//! [`DecodeError`]: super::DecodeError

use serde::de::DeserializeOwned;
use std::fmt;

/// Why a spec does not build: its text is not of the spec's shape, or a
/// value at a path in it does not do.
///
/// `Path` and `Problem` default to words (`records[3].cid`, "an integer,
/// found ..."); a format whose errors are data names its own types
/// (`demo::spec`: `SpecField`, `Problem`).
#[non_exhaustive]
#[derive(Debug)]
pub enum SpecError<Path = String, Problem = String> {
    /// Not RON of the spec's shape (the parser's error, with where).
    Ron(ron::error::SpannedError),
    /// Not JSON of the spec's shape (the parser's error, with where).
    Json(serde_json::Error),
    /// A value that does not do.
    Field {
        /// Where: `events[3].message`, `records[1].fields.team`, ... (empty
        /// for the document itself).
        path: Path,
        /// What was expected there.
        problem: Problem,
    },
}

impl<P, E> SpecError<P, E> {
    /// The error for a value at `path` that does not do.
    pub fn field(path: impl Into<P>, problem: impl Into<E>) -> Self {
        SpecError::Field {
            path: path.into(),
            problem: problem.into(),
        }
    }
}

impl<P: fmt::Display, E: fmt::Display> fmt::Display for SpecError<P, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Ron(e) => write!(f, "{e}"),
            SpecError::Json(e) => write!(f, "{e}"),
            SpecError::Field { path, problem } => match path.to_string().as_str() {
                "" => write!(f, "{problem}"),
                path => write!(f, "{path}: {problem}"),
            },
        }
    }
}

impl<P: fmt::Debug + fmt::Display, E: fmt::Debug + fmt::Display> std::error::Error
    for SpecError<P, E>
{
}

/// Reads a RON spec (`Option` fields need no `Some(..)`).
pub fn from_ron<T: DeserializeOwned, P, E>(text: &str) -> Result<T, SpecError<P, E>> {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(SpecError::Ron)
}

/// Reads a JSON spec.
pub fn from_json<T: DeserializeOwned, P, E>(text: &str) -> Result<T, SpecError<P, E>> {
    serde_json::from_str(text).map_err(SpecError::Json)
}
