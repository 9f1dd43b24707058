//! Stand-alone front end for the live driver while `softosa lab` and
//! `softosa display` are not wired into the main CLI:
//! `cargo run --example lab -p softosa-live -- lab --help`.

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The live lab.
    Lab(softosa_live::cli::LabArgs),
    /// A display of a running instance.
    Display(softosa_live::cli::DisplayArgs),
}

fn main() -> std::process::ExitCode {
    let r = match Cli::parse().cmd {
        Cmd::Lab(a) => softosa_live::cli::run(a),
        Cmd::Display(a) => softosa_live::cli::run_display(a),
    };
    match r {
        Ok(c) => c,
        Err(e) => {
            eprintln!("softosa: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
