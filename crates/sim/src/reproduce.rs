//! The reproduce suite (placeholder while the engine lands).
use std::process::ExitCode;
/// Reproduce the published measurements.
#[derive(Clone, Debug, clap::Args)]
pub struct ReproduceArgs {}
pub fn run(_a: ReproduceArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Ok(ExitCode::SUCCESS)
}
