//! Profile → engine configuration for a replay (layer: replay driver,
//! configuration; spec 05 §5.1 through the profile crate).
//!
//! The profile crate parses the TCP/IP profile and lowers it into the
//! engine's `SystemConfig`; this module only adapts its diagnostics to a
//! replay error. A JSON `SystemConfig` (a `.json` file: the engine's
//! configuration serialized, as a program that builds one writes it; no
//! softosa command does) is accepted too.

use softosa_engine::config::SystemConfig;
use softosa_profile::activate::{activate, ActivateOptions, StackInput};
use softosa_profile::load::{load_path, stack_name_of, Loaded};
use std::path::Path;

/// Why the configuration could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ConfigLoadError {
    #[error("{file}: cannot read: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}: not a valid SystemConfig JSON: {source}")]
    Json {
        file: String,
        source: serde_json::Error,
    },
    #[error("{file}: is a {kind}, not a TCP/IP profile")]
    NotAProfile { file: String, kind: &'static str },
    /// Profile diagnostics, one per line as `FILE:LINE:COL: error: message`.
    #[error("{0}")]
    Profile(String),
}

/// Whether `path` is read as a JSON SystemConfig (by its `.json` name).
pub fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Load a TCP/IP profile (or a `.json` SystemConfig) into an engine config.
pub fn load_config(path: &Path) -> Result<SystemConfig, ConfigLoadError> {
    let file = path.display().to_string();
    if is_json(path) {
        let text = softosa_profile::load::read_bounded_string(path).map_err(|source| {
            ConfigLoadError::Read {
                file: file.clone(),
                source,
            }
        })?;
        return serde_json::from_str(&text)
            .map_err(|source| ConfigLoadError::Json { file, source });
    }
    let (loaded, diags) = load_path(path);
    let render = |d: &softosa_profile::Diagnostics| {
        d.items()
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    if diags.has_errors() {
        return Err(ConfigLoadError::Profile(render(&diags)));
    }
    let profile = match loaded {
        Some(Loaded::Profile(p)) => p,
        Some(Loaded::Policy(_)) => {
            return Err(ConfigLoadError::NotAProfile {
                file,
                kind: "Policy Agent policy file",
            })
        }
        Some(Loaded::Trl(_)) => {
            return Err(ConfigLoadError::NotAProfile {
                file,
                kind: "VTAM TRL member",
            })
        }
        None => return Err(ConfigLoadError::Profile(render(&diags))),
    };
    // A profile was read from `path`, so it names a file and has a stem.
    let input = StackInput {
        name: stack_name_of(path),
        profile: &profile,
        policy: None,
    };
    activate(&[input], &[], &ActivateOptions::default())
        .map(|a| a.config)
        .map_err(|d| ConfigLoadError::Profile(render(&d)))
}
