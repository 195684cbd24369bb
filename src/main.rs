//! The `specprobe` command line: parses arguments, installs logging, calls the library.

#![forbid(unsafe_code)]

use clap::{ArgAction, Args, Parser, Subcommand, value_parser};
use specprobe::commands::{self, CompareArgs, MergeArgs, RunArgs};
use specprobe::{
    AxisMode, Band, Cancel, ChartOptions, Format, Overrides, Shard, ValueAxis, parse_bytes,
    parse_duration, parse_formats, parse_size,
};
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

/// Overrides of a scenario's settings.
#[derive(Debug, Args)]
struct OverrideArgs {
    /// Runs per policy (overrides the scenario's `runs`); `1e4` is read as 10000.
    #[arg(long, value_parser = whole_number)]
    runs: Option<u64>,
    /// Slots per run (overrides the scenario's `horizon`); `1e5` is read as 100000, as the
    /// papers write T.
    #[arg(long, value_parser = whole_number)]
    horizon: Option<u64>,
    /// Seed of every random stream (overrides the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Secondary users of a many-users scenario (overrides its `users`).
    #[arg(long)]
    users: Option<u64>,
    /// Worker threads [default: one per core]; results do not depend on it.
    #[arg(long, value_parser = value_parser!(u64).range(1..=specprobe::MAX_THREADS as u64))]
    threads: Option<u64>,
    /// Refuse runs estimated to need more memory than this (e.g. 8G) [default: this machine's
    /// physical memory].
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    max_memory: Option<u64>,
    /// Refuse runs estimated to take longer than this (e.g. 90m, 3h, 2d; `none`: no limit)
    /// [default: 1h]; each shard of a --shard run is estimated alone.
    #[arg(long, value_name = "DURATION", value_parser = max_time)]
    max_time: Option<MaxTime>,
}

/// A `--max-time` as given (`None`: no limit).
#[derive(Clone, Copy, Debug)]
struct MaxTime(Option<f64>);

fn max_time(s: &str) -> Result<MaxTime, String> {
    parse_duration(s).map(MaxTime)
}

/// What a run may take when `--max-time` is not given: an hour, past which a run is more
/// likely a mistyped count than a plan (and a plan says so with the flag).
const DEFAULT_MAX_TIME: f64 = 3600.0;

/// A count of at least 1, written with digits (`100000`) or, as papers write horizons, in
/// scientific notation that names a whole number (`1e5`, `2.5e3`).
fn whole_number(s: &str) -> Result<u64, String> {
    let value = match s.trim().parse::<u64>() {
        Ok(v) => v,
        Err(_) => match s.trim().parse::<f64>() {
            // Below 2^53 every whole number is exact in f64, so `1e5` means exactly 100000.
            Ok(v) if v.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&v) => v as u64,
            _ => {
                return Err(format!(
                    "expected a whole number such as 100000 or 1e5, got {s:?}"
                ));
            }
        },
    };
    if value == 0 {
        return Err("must be at least 1".into());
    }
    Ok(value)
}

/// Replacing an output folder.
#[derive(Debug, Args)]
struct ForceArg {
    /// Replace the output folder even when it holds another scenario's results or files
    /// specprobe did not write (they are deleted).
    #[arg(long)]
    force: bool,
}

/// A list of chart formats (one flag value, comma-separated).
#[derive(Clone, Debug)]
struct Formats(Vec<Format>);

/// How charts are drawn.
#[derive(Debug, Args)]
struct ChartArgs {
    /// Chart formats, comma-separated.
    #[arg(long, default_value = "png,svg", value_parser = |s: &str| parse_formats(s).map(Formats), value_name = "png,svg")]
    format: Formats,
    /// Chart size in pixels (at least 640x400).
    #[arg(long, default_value = "1000x600", value_parser = parse_size, value_name = "WxH")]
    size: (u32, u32),
    /// Slot axes: auto (regret linear and log, other charts linear), linear, log or both.
    #[arg(long, default_value = "auto", value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<AxisMode>()))]
    axis: AxisMode,
    /// Band around mean curves: sd (±1 sd across runs), se (±1 standard error) or ci95 (95 %
    /// confidence interval of the mean, Student's t).
    #[arg(long, default_value = "ci95", value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<Band>()))]
    band: Band,
    /// Value axis of regret charts: auto (logarithmic when the policies span more than 20×),
    /// linear or log.
    #[arg(long, default_value = "auto", value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<ValueAxis>()))]
    value_axis: ValueAxis,
    /// Write no charts (summary, curves and report only).
    #[arg(long)]
    no_charts: bool,
}

impl ChartArgs {
    fn options(&self) -> ChartOptions {
        ChartOptions {
            formats: if self.no_charts {
                Vec::new()
            } else {
                self.format.0.clone()
            },
            size: self.size,
            axis: self.axis,
            band: self.band,
            value_axis: self.value_axis,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a scenario; writes summary.json, curves.csv, charts and report.md.
    Run {
        /// The scenario file (RON).
        scenario: PathBuf,
        /// Output folder [default: results/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        overrides: OverrideArgs,
        /// Simulate only the runs r with r % N == I and write partial.json (combine with `merge`).
        #[arg(long, value_name = "I/N")]
        shard: Option<Shard>,
        #[command(flatten)]
        force: ForceArg,
        #[command(flatten)]
        charts: ChartArgs,
    },
    /// Combine the partial.json of every shard into the outputs of the unsharded run.
    Merge {
        /// Folders written by `run --shard I/N` (or their partial.json files), every shard once.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output folder [default: results/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        force: ForceArg,
        #[command(flatten)]
        charts: ChartArgs,
    },
    /// Re-render the charts and report.md of saved results (summary.json + curves.csv).
    Plot {
        /// A folder written by `specprobe run`.
        results: PathBuf,
        #[command(flatten)]
        charts: ChartArgs,
    },
    /// Run or load several scenarios and draw all their policies on shared axes.
    Compare {
        /// Scenario files (run now) or folders of saved results.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output folder [default: results/compare-<names>].
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        overrides: OverrideArgs,
        #[command(flatten)]
        force: ForceArg,
        #[command(flatten)]
        charts: ChartArgs,
    },
    /// Check a scenario; print it with its UCR-T1 optimum, expected reward and bounds.
    Validate {
        /// The scenario file (RON).
        scenario: PathBuf,
        /// Worker threads the duration is estimated for [default: one per core].
        #[arg(long, value_parser = value_parser!(u64).range(1..=specprobe::MAX_THREADS as u64))]
        threads: Option<u64>,
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

/// SIGINT and SIGTERM set the cancel flag (the run stops within a second, leaves earlier results
/// as they were, and the process exits with 128 + the signal); a second one exits at once.
fn install_signal_handlers(cancel: &Cancel) {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let again = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                Arc::clone(&again),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&again));
            let _ = signal_hook::flag::register_usize(signal, cancel.flag(), signal as usize);
        }
    }
    #[cfg(not(unix))]
    let _ = cancel;
    #[cfg(unix)]
    {
        // A file-size limit (`ulimit -f`) would kill the process silently with SIGXFSZ: with
        // the signal handled, the write fails with EFBIG instead and is reported as the
        // error it is (the earlier results stay, as for a full disk).
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let _ = signal_hook::flag::register(
            signal_hook::consts::SIGXFSZ,
            Arc::new(AtomicBool::new(false)),
        );
    }
    watchdog(cancel.clone());
}

/// What a stop by signal says, whether the work stopped by itself or the watchdog ended it.
const STOPPED: &str = "specprobe: stopped; earlier results were left as they were";

/// Grace the work gets to stop by itself after SIGINT or SIGTERM.
const GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// "Ctrl-C stops within a second", whatever is running: the simulation checks the flag as it
/// goes, but a step that does not (a long set-up, a slow user policy) must not hold the process.
/// After [`GRACE`] the process exits with 128 + the signal. That is as safe as SIGKILL, which
/// the result folders are built to survive: the destination holds the complete old or new
/// set, and the next run into it removes the staging folder left behind.
fn watchdog(cancel: Cancel) {
    let _ = std::thread::Builder::new()
        .name("signal-watchdog".into())
        .spawn(move || {
            // Only a signal: a stop the program asks for itself ends through its own error.
            while cancel.signal().is_none() {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            std::thread::sleep(GRACE);
            eprintln!("{STOPPED}");
            let code = cancel.signal().map_or(130, |s| 128 + s);
            std::process::exit(code);
        });
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let cancel = Cancel::new();
    install_signal_handlers(&cancel);
    let result = execute(cli.command, &cancel);
    if let Some(peak) = specprobe::peak_memory() {
        tracing::info!(
            peak_memory_bytes = peak,
            "peak memory {}",
            specprobe::format_bytes(peak)
        );
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if cancel.is_cancelled() => {
            eprintln!("specprobe: {err:#}");
            eprintln!("{STOPPED}");
            let code = cancel.signal().map_or(130, |s| 128 + s);
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_args(
    scenario: PathBuf,
    out: Option<PathBuf>,
    o: OverrideArgs,
    force: ForceArg,
    charts: &ChartArgs,
    cancel: &Cancel,
) -> RunArgs {
    RunArgs {
        scenario,
        out,
        overrides: Overrides {
            runs: o.runs,
            horizon: o.horizon,
            seed: o.seed,
            users: o.users,
        },
        threads: o.threads.map(|t| t as usize),
        shard: None,
        charts: charts.options(),
        force: force.force,
        max_memory: o.max_memory,
        max_time: o.max_time.map_or(Some(DEFAULT_MAX_TIME), |MaxTime(t)| t),
        cancel: cancel.clone(),
    }
}

fn execute(command: Command, cancel: &Cancel) -> anyhow::Result<()> {
    let outcome = match command {
        Command::Run {
            scenario,
            out,
            overrides,
            shard,
            force,
            charts,
        } => commands::run(&RunArgs {
            shard,
            ..run_args(scenario, out, overrides, force, &charts, cancel)
        })?,
        Command::Merge {
            inputs,
            out,
            force,
            charts,
        } => commands::merge(&MergeArgs {
            inputs,
            out,
            charts: charts.options(),
            force: force.force,
            cancel: cancel.clone(),
        })?,
        Command::Plot { results, charts } => commands::plot(&results, &charts.options(), cancel)?,
        Command::Compare {
            inputs,
            out,
            overrides,
            force,
            charts,
        } => commands::compare(&CompareArgs {
            inputs,
            out,
            run: run_args(PathBuf::new(), None, overrides, force, &charts, cancel),
        })?,
        Command::Validate { scenario, threads } => {
            print!(
                "{}",
                commands::validate_on(&scenario, threads.map(|t| t as usize))?
            );
            return Ok(());
        }
        Command::Policies => {
            print!("{}", commands::policies());
            return Ok(());
        }
    };
    for f in &outcome.files {
        tracing::info!("wrote {}", f.display());
    }
    // The results table of the report just written (a sweep's own, not a cell's), and where
    // the report is; without a report (a shard's partial results), the files.
    let report = outcome.report();
    match report.and_then(|r| std::fs::read_to_string(r).ok()) {
        Some(text) => {
            if let Some(table) = commands::headline(&text) {
                print!("{table}");
            }
            println!("report: {}", report.unwrap_or(&outcome.out).display());
        }
        None => {
            for f in &outcome.files {
                println!("wrote {}", f.display());
            }
        }
    }
    if let Some(note) = outcome.note() {
        eprintln!("note: {note}");
    }
    Ok(())
}
