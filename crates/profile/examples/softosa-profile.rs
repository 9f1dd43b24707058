//! Stand-alone front end for the profile commands, until the lead wires
//! `softosa profile` into crates/cli: `cargo run -p softosa-profile
//! --example softosa-profile -- check FILE...`.
use clap::Parser;
use softosa_profile::cli::{run, ProfileArgs};

#[derive(Parser)]
#[command(name = "softosa-profile")]
struct Cli {
    #[command(flatten)]
    args: ProfileArgs,
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse().args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("softosa profile: {e}");
            std::process::ExitCode::from(2)
        }
    }
}
