//! softosa-profile: reads the z/OS configuration people already have — the
//! TCP/IP profile statements of spec 5.1, the Policy Agent
//! `SetSubnetPrioTosMask` block (spec 3.1) and VTAM TRLE definitions — into
//! typed structures, checks the rules of spec 5.1, converts legacy
//! DEVICE/LINK/HOME definitions to INTERFACE statements, and lowers
//! ("activates") validated profiles into the engine's `SystemConfig`.
//!
//! Layer: configuration front end; no engine state, no I/O except in
//! [`cli`]. Every problem is a [`diag::Diagnostic`] with file, line and
//! column; nothing panics on input.
//!
//! Keywords are case-insensitive and may be abbreviated exactly as far as
//! z/OS documents (the upper-case part of `GLOBALCONFig`); keywords whose
//! minimum abbreviation we could not confirm must be coded in full (see
//! [`keywords`]).

pub mod activate;
pub mod ast;
pub mod cli;
pub mod convert;
pub mod diag;
pub mod keywords;
pub mod lexer;
pub mod load;
pub mod parser;
pub mod policy;
pub mod print;
pub mod trle;
pub mod validate;

pub use ast::*;
pub use diag::{
    DiagKind, Diagnostic, Diagnostics, ErrorKind, Severity, Span, Spanned, WarningKind,
};
pub use parser::parse_profile;
