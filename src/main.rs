//! The `specprobe` command line: parses arguments, installs logging, calls the library.

use clap::{ArgAction, Parser, Subcommand, value_parser};
use specprobe::commands::{self, RunArgs};
use specprobe::runner::Shard;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use tracing_indicatif::IndicatifLayer;
use tracing_indicatif::filter::IndicatifFilter;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

/// Simulator for cost-aware spectrum access (cost-aware cascading bandits).
#[derive(Debug, Parser)]
#[command(name = "specprobe", version, about, long_about = None)]
struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a scenario; writes summary.json, curves.csv and report.md into the output folder.
    Run {
        /// The scenario file (RON).
        scenario: PathBuf,
        /// Output folder [default: results/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs per policy (overrides the scenario's `runs`).
        #[arg(long, value_parser = value_parser!(u64).range(1..))]
        runs: Option<u64>,
        /// Slots per run (overrides the scenario's `horizon`).
        #[arg(long, value_parser = value_parser!(u64).range(1..))]
        horizon: Option<u64>,
        /// Seed of every random stream (overrides the scenario's `seed`).
        #[arg(long)]
        seed: Option<u64>,
        /// Worker threads [default: one per core]; results do not depend on it.
        #[arg(long, value_parser = value_parser!(u64).range(1..4096))]
        threads: Option<u64>,
    },
    /// Check a scenario; print it with its UCR-T1 optimum, expected reward and bounds.
    Validate {
        /// The scenario file (RON).
        scenario: PathBuf,
    },
    /// List the policies with their parameters and defaults.
    Policies,
}

fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let indicatif = IndicatifLayer::new();
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(indicatif.get_stderr_writer())
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .with_filter(filter);
    // Progress bars only for spans that ask for one; indicatif hides them when stderr is not a
    // terminal.
    let bars = indicatif.with_filter(IndicatifFilter::new(false));
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(bars)
        .try_init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn execute(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run {
            scenario,
            out,
            runs,
            horizon,
            seed,
            threads,
        } => {
            let outcome = commands::run(&RunArgs {
                scenario,
                out,
                runs,
                horizon,
                seed,
                threads: threads.map(|t| t as usize),
                shard: Shard::default(),
            })?;
            for f in &outcome.files {
                println!("wrote {}", f.display());
            }
        }
        Command::Validate { scenario } => print!("{}", commands::validate(&scenario)?),
        Command::Policies => print!("{}", commands::policies()),
    }
    Ok(())
}
