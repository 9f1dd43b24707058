//! Stand-alone front end for `softosa replay` until the lead wires
//! `softosa_replay::cli` into the `softosa` binary:
//! `cargo run -p softosa-replay --example softosa-replay -- CAPTURE --profile FILE`.
use clap::Parser;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "softosa-replay")]
struct Cli {
    #[command(flatten)]
    args: softosa_replay::cli::ReplayArgs,
}

fn main() -> ExitCode {
    match softosa_replay::cli::run(Cli::parse().args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("softosa replay: {e}");
            ExitCode::FAILURE
        }
    }
}
