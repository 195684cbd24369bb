//! `specprobe._specprobe`: the Python extension. It calls the specprobe library and nothing
//! else: scenarios come in as a path or as JSON text (a dict dumped by the Python side), results
//! go out as the bytes of the files the command line writes, so that Python and the CLI agree bit
//! for bit. The friendly API (`specprobe.run`, `Results`, DataFrames) is `specprobe/__init__.py`.
//!
//! Built-in policies run with the interpreter detached (other Python threads go on); the calling
//! thread wakes every 20 ms to run Python's signal handlers, so Ctrl-C stops a run through its
//! cancel flag within a second. Python policies and identifiers call back into the interpreter
//! for every `plan`, `observe`, `next` and `answer`: they run on one worker thread.

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use pyo3::types::{PyDict, PyList};
use specprobe::commands::{self, CommandError, CompareArgs, MergeArgs, RunArgs};
use specprobe::{
    Cancel, ChartOptions, CustomIdentifier, CustomPolicy, CustomTeam, Destination, Environment,
    ExportError, Format, Identifier, Overrides, Policy, Problem, Replace, Results, Scenario,
    ScenarioError as CoreScenarioError, Seen, SimRng, Simulation, Team,
};
use std::path::{Path, PathBuf};

mod env;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An exception class of `specprobe._errors` (defined in Python, so that `ScenarioError` can be
/// both a `SpecprobeError` and a `ValueError`), looked up once.
fn error_type<'py>(py: Python<'py>, name: &'static str) -> Bound<'py, PyType> {
    static TYPES: PyOnceLock<Vec<(&'static str, Py<PyType>)>> = PyOnceLock::new();
    let types = TYPES.get_or_init(py, || {
        let module = py
            .import("specprobe._errors")
            .expect("specprobe._errors ships with the extension");
        ["SpecprobeError", "ScenarioError", "PolicyError"]
            .into_iter()
            .map(|n| {
                let ty = module
                    .getattr(n)
                    .and_then(|t| Ok(t.cast_into::<PyType>()?))
                    .expect("specprobe._errors defines the exception classes");
                (n, ty.unbind())
            })
            .collect()
    });
    types
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t.bind(py).clone())
        .expect("a known exception class")
}

/// `specprobe.SpecprobeError(message)`.
fn specprobe_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    PyErr::from_type(error_type(py, "SpecprobeError"), message.into())
}

/// How long the calling thread sleeps between two looks at Python's signal handlers.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// The name a dict scenario goes by in messages.
const DICT: &str = "<dict>";

fn scenario_error(py: Python<'_>, e: &CoreScenarioError, file: Option<&Path>) -> PyErr {
    let err = PyErr::from_type(error_type(py, "ScenarioError"), e.to_string());
    let value = err.value(py);
    let all = e.problems();
    let problems = PyList::empty(py);
    for p in &all {
        let d = PyDict::new(py);
        let _ = d.set_item("line", p.line);
        let _ = d.set_item("column", p.col);
        let _ = d.set_item("field", &p.field);
        let _ = d.set_item("rule", &p.rule);
        let _ = problems.append(d);
    }
    let first = all.first().map(|p| (*p).clone());
    let _ = value.setattr("file", file.map(|f| f.display().to_string()));
    let _ = value.setattr("problems", problems);
    let _ = value.setattr("line", first.as_ref().map(|p| p.line));
    let _ = value.setattr("column", first.as_ref().map(|p| p.col));
    let _ = value.setattr("field", first.as_ref().map(|p| p.field.clone()));
    let _ = value.setattr("rule", first.as_ref().map(|p| p.rule.clone()));
    err
}

/// An error of the library as a Python exception: scenario errors as `ScenarioError`, anything
/// else as `SpecprobeError`, with the whole chain of causes in the message.
fn command_error(py: Python<'_>, e: &CommandError) -> PyErr {
    if let Some(s) = e.scenario() {
        let file = match s {
            CoreScenarioError::Read { path, .. }
            | CoreScenarioError::Parse { path, .. }
            | CoreScenarioError::Invalid { path, .. } => path,
        };
        let file = (file != Path::new(DICT)).then_some(file.as_path());
        return scenario_error(py, s, file);
    }
    if let Some(f) = e.list_fault() {
        return PyErr::from_type(error_type(py, "PolicyError"), f.to_string());
    }
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    specprobe_error(py, message)
}

/// A scenario from a path, or JSON text of a dict (`json=True`).
pub(crate) fn load(py: Python<'_>, scenario: &str, json: bool) -> PyResult<Scenario> {
    let result = if json {
        specprobe::parse(scenario, Path::new(DICT))
    } else {
        specprobe::load(Path::new(scenario))
    };
    result.map_err(|e| scenario_error(py, &e, (!json).then(|| Path::new(scenario))))
}

/// Chart options for `formats` (`png`, `svg`); None draws both, as the command line does.
fn chart_options(formats: Option<Vec<String>>) -> PyResult<ChartOptions> {
    let formats = match formats {
        None => return Ok(ChartOptions::default()),
        Some(list) => list
            .iter()
            .map(|f| match f.to_ascii_lowercase().as_str() {
                "png" => Ok(Format::Png),
                "svg" => Ok(Format::Svg),
                other => Err(PyValueError::new_err(format!(
                    "formats: {other:?} is not a chart format (png or svg)"
                ))),
            })
            .collect::<PyResult<_>>()?,
    };
    Ok(ChartOptions {
        formats,
        ..ChartOptions::default()
    })
}

/// The first error a Python callback raised, shared by every copy of the policy.
#[derive(Clone, Default)]
struct Failure(Arc<Mutex<Option<PyErr>>>);

impl Failure {
    /// Keeps the first error and stops the run.
    fn record(&self, err: PyErr, cancel: &Cancel) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(err);
        }
        cancel.cancel();
    }

    fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// `PolicyError("policy 'eps' raised at slot 12: ...")` caused by `err`.
fn policy_error(py: Python<'_>, what: &str, err: PyErr) -> PyErr {
    let wrapped = PyErr::from_type(
        error_type(py, "PolicyError"),
        format!(
            "{what}: {}",
            err.value(py)
                .repr()
                .map_or_else(|_| err.to_string(), |r| r.to_string())
        ),
    );
    wrapped.set_cause(py, Some(err));
    wrapped
}

/// Keeps the worker thread known to the interpreter (a Python thread state) for as long as a
/// Python policy lives, without holding the interpreter lock between callbacks. Without it,
/// every callback from a thread that Python did not create would build and destroy a thread
/// state (30 µs a slot). The lock itself is taken only for each callback, so other Python
/// threads, and the caller polling for Ctrl-C, run whenever the engine does. Created and dropped
/// on the worker thread that runs the policy.
struct ThreadAnchor {
    state: pyo3::ffi::PyGILState_STATE,
    saved: *mut pyo3::ffi::PyThreadState,
}

impl ThreadAnchor {
    fn new() -> ThreadAnchor {
        // SAFETY: the interpreter is initialised (this runs inside a call from Python); Ensure
        // attaches this thread, SaveThread releases the lock and keeps the thread state.
        unsafe {
            let state = pyo3::ffi::PyGILState_Ensure();
            let saved = pyo3::ffi::PyEval_SaveThread();
            ThreadAnchor { state, saved }
        }
    }
}

impl Drop for ThreadAnchor {
    fn drop(&mut self) {
        // SAFETY: on the thread that created the anchor (policies never move between threads),
        // undoing `new` in reverse order.
        unsafe {
            pyo3::ffi::PyEval_RestoreThread(self.saved);
            pyo3::ffi::PyGILState_Release(self.state);
        }
    }
}

/// A Python policy's bound methods, looked up once (a lookup per call costs more than the call).
struct Methods {
    plan: Py<PyAny>,
    observe: Py<PyAny>,
}

/// Whether the run was asked to stop (Ctrl-C seen by the caller's poll): then the object is
/// dropped and never called again, so the rest of the run, which is thrown away, costs no
/// Python time and stops at the engine's next look at the flag (a policy taking 10 ms a slot
/// would otherwise hold Ctrl-C for 2¹⁶ slots).
fn stopping<T>(cancel: &Cancel, obj: &mut Option<T>) -> bool {
    if !cancel.is_cancelled() {
        return false;
    }
    if let Some(obj) = obj.take() {
        Python::attach(|_| drop(obj));
    }
    true
}

/// A Python object driven as a [`Policy`].
struct PyPolicy {
    obj: Option<Methods>,
    /// A class whose constructor takes `seed`: built at the run's first slot, when the run's
    /// own stream is at hand to draw its seed from.
    pending: Option<(Py<PyAny>, Vec<f64>)>,
    label: String,
    channels: usize,
    slot: u64,
    seen: Vec<bool>,
    failure: Failure,
    cancel: Cancel,
    /// Last: dropped after the Python object.
    _anchor: ThreadAnchor,
}

impl PyPolicy {
    fn fail(&mut self, py: Python<'_>, doing: &str, err: PyErr) {
        let what = format!(
            "policy {:?} raised in {doing} at slot {}",
            self.label, self.slot
        );
        self.failure
            .record(policy_error(py, &what, err), &self.cancel);
        self.obj = None;
    }
}

/// Whether `callable` accepts the keyword `name` (by name or through `**kwargs`).
fn accepts_keyword(py: Python<'_>, callable: &Bound<'_, PyAny>, name: &str) -> bool {
    let found = || -> PyResult<bool> {
        let signature = py
            .import("inspect")?
            .call_method1("signature", (callable,))?;
        let parameters = signature.getattr("parameters")?;
        if parameters.contains(name)? {
            return Ok(true);
        }
        let var_keyword = py
            .import("inspect")?
            .getattr("Parameter")?
            .getattr("VAR_KEYWORD")?;
        for p in parameters.call_method0("values")?.try_iter()? {
            if p?.getattr("kind")?.eq(&var_keyword)? {
                return Ok(true);
            }
        }
        Ok(false)
    };
    found().unwrap_or(false)
}

/// Builds a Python policy: `cls(channels, mean_costs=[...])`, with `seed=` when it takes one.
fn construct(
    py: Python<'_>,
    class: &Py<PyAny>,
    channels: usize,
    mean_costs: &[f64],
    seed: Option<u64>,
) -> PyResult<Methods> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("mean_costs", mean_costs.to_vec())?;
    if let Some(seed) = seed {
        kwargs.set_item("seed", seed)?;
    }
    let o = class.call(py, (channels,), Some(&kwargs))?;
    Ok(Methods {
        plan: o.getattr(py, intern!(py, "plan"))?,
        observe: o.getattr(py, intern!(py, "observe"))?,
    })
}

impl Policy for PyPolicy {
    fn plan(&mut self, t: u64, list: &mut Vec<usize>, rng: &mut SimRng) {
        self.slot = t;
        if let Some((class, mean_costs)) = self.pending.take() {
            // The run's own stream (from the scenario seed and the run index, as for a Rust
            // policy): every run draws differently, and a rerun draws the same.
            let seed = specprobe::rand::Rng::next_u64(rng);
            Python::attach(|py| {
                match construct(py, &class, self.channels, &mean_costs, Some(seed)) {
                    Ok(o) => self.obj = Some(o),
                    Err(e) => self.fail(py, "its constructor", e),
                }
                drop(class);
            });
        }
        // Taken for the call and put back unless it failed: a failed policy is called no more.
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        Python::attach(|py| {
            let planned = obj
                .plan
                .call1(py, (t,))
                .and_then(|r| r.extract::<Vec<usize>>(py));
            match planned {
                Ok(order) => {
                    self.seen.iter_mut().for_each(|s| *s = false);
                    for &c in &order {
                        if c >= self.channels || std::mem::replace(&mut self.seen[c], true) {
                            let err = PyValueError::new_err(format!(
                                "plan() returned {order:?}: channels must be distinct indices below {}",
                                self.channels
                            ));
                            self.fail(py, "plan()", err);
                            return;
                        }
                    }
                    list.extend_from_slice(&order);
                    self.obj = Some(obj);
                }
                Err(e) => self.fail(py, "plan()", e),
            }
        });
    }

    fn observe(&mut self, channel: usize, idle: bool, cost: f64) {
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        Python::attach(|py| match obj.observe.call1(py, (channel, idle, cost)) {
            Ok(_) => self.obj = Some(obj),
            Err(e) => self.fail(py, "observe()", e),
        });
    }
}

/// A Python object driven as an [`Identifier`].
struct PyIdentifier {
    obj: Option<Py<PyAny>>,
    name: String,
    arms: usize,
    k: usize,
    samples: u64,
    failure: Failure,
    cancel: Cancel,
    /// Last: dropped after the Python object.
    _anchor: ThreadAnchor,
}

impl PyIdentifier {
    fn fail(&self, py: Python<'_>, doing: &str, err: PyErr) {
        let what = format!(
            "identifier {:?} raised in {doing} after {} samples",
            self.name, self.samples
        );
        self.failure
            .record(policy_error(py, &what, err), &self.cancel);
    }
}

impl Identifier for PyIdentifier {
    fn next(&mut self, _rng: &mut SimRng) -> Option<usize> {
        if stopping(&self.cancel, &mut self.obj) {
            return None;
        }
        let obj = self.obj.take()?;
        Python::attach(|py| {
            let arm = obj
                .call_method0(py, intern!(py, "next"))
                .and_then(|r| r.extract::<Option<usize>>(py));
            match arm {
                Ok(Some(a)) if a < self.arms => {
                    self.samples += 1;
                    self.obj = Some(obj);
                    Some(a)
                }
                Ok(None) => {
                    self.obj = Some(obj);
                    None
                }
                Ok(Some(a)) => {
                    let err = PyValueError::new_err(format!(
                        "next() returned arm {a}; arms are 0 to {}",
                        self.arms - 1
                    ));
                    self.fail(py, "next()", err);
                    None
                }
                Err(e) => {
                    self.fail(py, "next()", e);
                    None
                }
            }
        })
    }

    fn observe(&mut self, arm: usize, reward: f64) {
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        Python::attach(
            |py| match obj.call_method1(py, intern!(py, "observe"), (arm, reward)) {
                Ok(_) => self.obj = Some(obj),
                Err(e) => self.fail(py, "observe()", e),
            },
        );
    }

    fn answer(&self, out: &mut Vec<usize>) {
        let Some(obj) = &self.obj else { return };
        Python::attach(|py| {
            let answer = obj
                .call_method0(py, intern!(py, "answer"))
                .and_then(|r| r.extract::<Vec<usize>>(py));
            match answer {
                Ok(a) if a.len() == self.k && a.iter().all(|&i| i < self.arms) => {
                    out.extend_from_slice(&a);
                }
                Ok(a) => self.fail(
                    py,
                    "answer()",
                    PyValueError::new_err(format!(
                        "answer() returned {a:?}: it must list {} arms below {}",
                        self.k, self.arms
                    )),
                ),
                Err(e) => self.fail(py, "answer()", e),
            }
        });
    }
}

fn policy_entry(class: Py<PyAny>, label: String, failure: Failure, cancel: Cancel) -> CustomPolicy {
    let description = Python::attach(|py| {
        class
            .bind(py)
            .getattr("__qualname__")
            .map_or_else(|_| "python".to_string(), |n| format!("python:{n}"))
    });
    let takes_seed = Python::attach(|py| accepts_keyword(py, class.bind(py), "seed"));
    let one_channel = Python::attach(|py| declares_one_channel(class.bind(py)));
    let factory = move |env: &Environment| -> Box<dyn Policy> {
        let anchor = ThreadAnchor::new();
        let channels = env.len();
        let (obj, pending) = Python::attach(|py| {
            if takes_seed {
                let pending = (class.clone_ref(py), env.mean_cost().to_vec());
                (None, Some(pending))
            } else {
                let built = construct(py, &class, channels, env.mean_cost(), None);
                (Some(built), None)
            }
        });
        let mut policy = PyPolicy {
            obj: None,
            pending,
            label: label.clone(),
            channels,
            slot: 0,
            seen: vec![false; channels],
            failure: failure.clone(),
            cancel: cancel.clone(),
            _anchor: anchor,
        };
        match obj {
            Some(Ok(o)) => policy.obj = Some(o),
            Some(Err(e)) => Python::attach(|py| policy.fail(py, "its constructor", e)),
            None => {}
        }
        Box::new(policy)
    };
    let policy = CustomPolicy::from_factory(description, Arc::new(factory));
    if one_channel {
        policy.one_channel()
    } else {
        policy
    }
}

/// A Python team's bound methods (`busy` optional).
struct TeamMethods {
    plan: Py<PyAny>,
    busy: Option<Py<PyAny>>,
    seen: Py<PyAny>,
}

/// A Python object driven as a many-users [`Team`]. Lists are checked by the engine (as for
/// a Rust team); a raise stops the run with a `PolicyError`.
struct PyTeam {
    obj: Option<TeamMethods>,
    label: String,
    slot: u64,
    failure: Failure,
    cancel: Cancel,
    /// Last: dropped after the Python object.
    _anchor: ThreadAnchor,
}

impl PyTeam {
    fn fail(&mut self, py: Python<'_>, doing: &str, err: PyErr) {
        let what = format!(
            "team {:?} raised in {doing} at slot {}",
            self.label, self.slot
        );
        self.failure
            .record(policy_error(py, &what, err), &self.cancel);
        self.obj = None;
    }
}

impl Team for PyTeam {
    fn plan(&mut self, t: u64, lists: &mut [Vec<usize>], _rngs: &mut [SimRng]) {
        self.slot = t;
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        Python::attach(|py| {
            let planned = obj
                .plan
                .call1(py, (t,))
                .and_then(|r| r.extract::<Vec<Vec<usize>>>(py));
            match planned {
                Ok(planned) if planned.len() == lists.len() => {
                    for (list, p) in lists.iter_mut().zip(planned) {
                        list.extend_from_slice(&p);
                    }
                    self.obj = Some(obj);
                }
                Ok(planned) => {
                    let err = PyValueError::new_err(format!(
                        "plan() returned {} lists: one per user ({}) is needed",
                        planned.len(),
                        lists.len()
                    ));
                    self.fail(py, "plan()", err);
                }
                Err(e) => self.fail(py, "plan()", e),
            }
        });
    }

    fn busy(&mut self, u: usize, channel: usize, cost: f64) {
        if self.obj.as_ref().is_none_or(|o| o.busy.is_none()) {
            return;
        }
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        let called = Python::attach(|py| {
            obj.busy
                .as_ref()
                .map_or(Ok(()), |b| b.call1(py, (u, channel, cost)).map(|_| ()))
        });
        match called {
            Ok(()) => self.obj = Some(obj),
            Err(e) => Python::attach(|py| self.fail(py, "busy()", e)),
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, cost: f64, _rng: &mut SimRng) {
        if stopping(&self.cancel, &mut self.obj) {
            return;
        }
        let Some(obj) = self.obj.take() else { return };
        Python::attach(|py| {
            let args = (
                u,
                seen.transmitted,
                seen.last,
                seen.sample,
                seen.collision,
                seen.ack,
                cost,
            );
            match obj.seen.call1(py, args) {
                Ok(_) => self.obj = Some(obj),
                Err(e) => self.fail(py, "seen()", e),
            }
        });
    }
}

/// Whether a policy or team class declares `one_channel = True`: every list holds at most one
/// channel (checked on every list), so a many-users team is measured as the built-in
/// one-channel teams are.
fn declares_one_channel(class: &Bound<'_, PyAny>) -> bool {
    class
        .getattr("one_channel")
        .and_then(|v| v.is_truthy())
        .unwrap_or(false)
}

fn team_entry(class: Py<PyAny>, label: String, failure: Failure, cancel: Cancel) -> CustomTeam {
    let description = Python::attach(|py| {
        class
            .bind(py)
            .getattr("__qualname__")
            .map_or_else(|_| "python".to_string(), |n| format!("python:{n}"))
    });
    let one_channel = Python::attach(|py| declares_one_channel(class.bind(py)));
    let factory = move |env: &Environment, users: usize, horizon: u64| -> Box<dyn Team> {
        let anchor = ThreadAnchor::new();
        let obj = Python::attach(|py| {
            let kwargs = PyDict::new(py);
            kwargs.set_item("mean_costs", env.mean_cost().to_vec())?;
            kwargs.set_item("horizon", horizon)?;
            let o = class.call(py, (env.len(), users), Some(&kwargs))?;
            let busy = o.bind(py).hasattr(intern!(py, "busy"))?;
            Ok::<_, PyErr>(TeamMethods {
                plan: o.getattr(py, intern!(py, "plan"))?,
                busy: if busy {
                    Some(o.getattr(py, intern!(py, "busy"))?)
                } else {
                    None
                },
                seen: o.getattr(py, intern!(py, "seen"))?,
            })
        });
        let mut team = PyTeam {
            obj: None,
            label: label.clone(),
            slot: 0,
            failure: failure.clone(),
            cancel: cancel.clone(),
            _anchor: anchor,
        };
        match obj {
            Ok(o) => team.obj = Some(o),
            Err(e) => Python::attach(|py| team.fail(py, "its constructor", e)),
        }
        Box::new(team)
    };
    let team = CustomTeam::from_factory(description, Arc::new(factory));
    if one_channel {
        team.one_channel()
    } else {
        team
    }
}

fn identifier_entry(
    class: Py<PyAny>,
    name: String,
    failure: Failure,
    cancel: Cancel,
) -> CustomIdentifier {
    let label = name.clone();
    let factory = move |p: &Problem| -> Box<dyn Identifier> {
        let anchor = ThreadAnchor::new();
        let obj = Python::attach(|py| {
            let kwargs = PyDict::new(py);
            kwargs.set_item("sigma", p.sigma)?;
            kwargs.set_item("confidence", p.confidence)?;
            class.call(py, (p.arms, p.k), Some(&kwargs))
        });
        let identifier = PyIdentifier {
            obj: None,
            name: name.clone(),
            arms: p.arms,
            k: p.k,
            samples: 0,
            failure: failure.clone(),
            cancel: cancel.clone(),
            _anchor: anchor,
        };
        let identifier = match obj {
            Ok(o) => PyIdentifier {
                obj: Some(o),
                ..identifier
            },
            Err(e) => {
                Python::attach(|py| identifier.fail(py, "its constructor", e));
                identifier
            }
        };
        Box::new(identifier)
    };
    CustomIdentifier::from_factory(label, Arc::new(factory))
}

/// Runs `work` on a worker thread with the interpreter detached, looking at Python's signal
/// handlers every 20 ms: a KeyboardInterrupt (or any exception a handler raises) cancels the
/// work and is returned once the worker has stopped.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    work: impl FnOnce() -> T + Send,
) -> Result<T, PyErr> {
    interruptible_with(py, cancel, |_| {}, work)
}

/// Progress of a run on `sys.stderr`, a line rewritten at most once a second (`progress=True`;
/// the Python wrapper turns it on when stderr is a terminal, as the command line draws its bar).
struct Shown {
    on: bool,
    started: std::time::Instant,
    last: Option<std::time::Instant>,
}

impl Shown {
    fn new(on: bool) -> Shown {
        Shown {
            on,
            started: std::time::Instant::now(),
            last: None,
        }
    }

    fn tick(&mut self, py: Python<'_>, counter: &specprobe::RunCounter) {
        let now = std::time::Instant::now();
        // A second after the start, then a second after the last line.
        if !self.on || now - self.last.unwrap_or(self.started) < Duration::from_secs(1) {
            return;
        }
        self.last = Some(now);
        let elapsed = (now - self.started).as_secs();
        self.write(
            py,
            &format!(
                "\rspecprobe: {}/{} runs, {elapsed} s",
                counter.done(),
                counter.total()
            ),
        );
    }

    fn end(&self, py: Python<'_>) {
        if self.last.is_some() {
            self.write(py, "\n");
        }
    }

    /// Progress is best effort: a stderr that cannot be written to is not an error of the run.
    fn write(&self, py: Python<'_>, text: &str) {
        if let Ok(stderr) = py.import("sys").and_then(|s| s.getattr("stderr")) {
            let _ = stderr.call_method1("write", (text,));
            let _ = stderr.call_method0("flush");
        }
    }
}

/// [`interruptible`], calling `tick` with the interpreter at every look (progress).
pub(crate) fn interruptible_with<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    mut tick: impl FnMut(Python<'_>) + Send,
    work: impl FnOnce() -> T + Send,
) -> Result<T, PyErr> {
    let mut interrupted = None;
    let out = py.detach(|| {
        std::thread::scope(|s| {
            let worker = s.spawn(work);
            while !worker.is_finished() {
                std::thread::sleep(SIGNAL_POLL);
                if interrupted.is_none()
                    && let Err(e) = Python::attach(|py| {
                        tick(py);
                        py.check_signals()
                    })
                {
                    interrupted = Some(e);
                    cancel.cancel();
                }
            }
            worker.join()
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    out.map_err(|_| specprobe_error(py, "the simulation thread panicked"))
}

/// (file name, bytes) of each data file written.
type DataFiles = Vec<(String, Vec<u8>)>;

/// The files of a results folder that Python reads back (named by the library).
use specprobe::DATA_FILES;

/// Runs a scenario; returns the kind and the bytes of the data files, written into `out` with
/// `formats` charts when `out` is given, into a scratch folder otherwise.
#[pyfunction]
#[pyo3(signature = (scenario, *, json=false, runs=None, horizon=None, seed=None, threads=None,
    out=None, force=false, formats=None, max_memory=None, max_time=None, policies=Vec::new(),
    identifiers=Vec::new(), teams=Vec::new(), progress=false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario: &str,
    json: bool,
    runs: Option<u64>,
    horizon: Option<u64>,
    seed: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    force: bool,
    formats: Option<Vec<String>>,
    max_memory: Option<u64>,
    max_time: Option<String>,
    policies: Vec<(String, Py<PyAny>)>,
    identifiers: Vec<(String, Py<PyAny>)>,
    teams: Vec<(String, Py<PyAny>)>,
    progress: bool,
) -> PyResult<(String, DataFiles)> {
    let loaded = load(py, scenario, json)?;
    let counter = specprobe::RunCounter::new();
    let charts = chart_options(formats)?;
    let cancel = Cancel::new();
    let failure = Failure::default();
    let python_code = !policies.is_empty() || !identifiers.is_empty() || !teams.is_empty();
    let mut sim = Simulation::new(loaded)
        .overrides(Overrides {
            runs,
            horizon,
            seed,
            users: None,
        })
        .cancel(cancel.clone())
        .counter(counter.clone());
    sim = limits(sim, threads, max_memory, max_time, python_code)?;
    let code = PythonCode {
        policies,
        identifiers,
        teams,
    };
    sim = code.register(sim, &failure, &cancel);
    // The scenario is checked and the destination opened (and locked) before the long run.
    let prepared = sim
        .prepare()
        .map_err(|e| command_error(py, &CommandError::from(e)))?;
    let replace = if force {
        Replace::Any
    } else {
        Replace::SameScenario
    };
    let dest = match &out {
        Some(dir) => Some(prepared.open(dir, replace).map_err(|source| {
            command_error(
                py,
                &CommandError::Out {
                    path: dir.clone(),
                    source,
                },
            )
        })?),
        None => None,
    };
    let mut shown = Shown::new(progress);
    let outcome = interruptible_with(
        py,
        &cancel,
        |py| shown.tick(py, &counter),
        || prepared.run(),
    );
    shown.end(py);
    if let Some(e) = failure.take() {
        return Err(e);
    }
    let results = outcome?.map_err(|e| command_error(py, &e.into()))?;
    let files = write_results(py, &results, charts, dest, out.as_deref(), &cancel)?;
    Ok((results.kind().to_string(), files))
}

/// The run's limits: threads (one where Python code runs: callbacks serialise on the
/// interpreter, more threads would only contend for it), memory and time.
fn limits(
    mut sim: Simulation,
    threads: Option<usize>,
    max_memory: Option<u64>,
    max_time: Option<String>,
    python_code: bool,
) -> PyResult<Simulation> {
    if python_code {
        sim = sim.threads(1);
    } else if let Some(t) = threads {
        sim = sim.threads(t.max(1));
    }
    if let Some(m) = max_memory {
        sim = sim.max_memory(m);
    }
    if let Some(text) = max_time {
        match specprobe::parse_duration(&text) {
            Ok(Some(seconds)) => sim = sim.max_time(seconds),
            Ok(None) => {}
            Err(rule) => return Err(PyValueError::new_err(format!("max_time: {rule}"))),
        }
    }
    Ok(sim)
}

/// The policies, identifiers and teams written in Python, by label.
struct PythonCode {
    policies: Vec<(String, Py<PyAny>)>,
    identifiers: Vec<(String, Py<PyAny>)>,
    teams: Vec<(String, Py<PyAny>)>,
}

impl PythonCode {
    /// Registers each class with the simulation, reporting its failures to `failure`.
    fn register(self, mut sim: Simulation, failure: &Failure, cancel: &Cancel) -> Simulation {
        let Self {
            policies,
            identifiers,
            teams,
        } = self;
        for (label, class) in policies {
            sim = sim.custom_policy(
                label.clone(),
                policy_entry(class, label, failure.clone(), cancel.clone()),
            );
        }
        for (label, class) in teams {
            sim = sim.custom_team(
                label.clone(),
                team_entry(class, label, failure.clone(), cancel.clone()),
            );
        }
        for (name, class) in identifiers {
            sim = sim.custom_identifier(identifier_entry(
                class,
                name,
                failure.clone(),
                cancel.clone(),
            ));
        }
        sim
    }
}

/// The results' files, written into `dest` with charts when there is one, in memory only
/// otherwise; the data files are returned.
fn write_results(
    py: Python<'_>,
    results: &Results,
    charts: ChartOptions,
    dest: Option<Destination>,
    out: Option<&Path>,
    cancel: &Cancel,
) -> PyResult<DataFiles> {
    // Rendered in memory; charts only when they are written.
    let charts = if dest.is_some() {
        charts
    } else {
        ChartOptions {
            formats: Vec::new(),
            ..charts
        }
    };
    let written = py.detach(|| -> Result<_, ExportError> {
        let files = results.files(&charts)?;
        if let Some(dest) = dest {
            specprobe::write_files(&files, dest, cancel)?;
        }
        Ok(files)
    });
    let files = written.map_err(|source| {
        command_error(
            py,
            &CommandError::Write {
                doing: "writing results for",
                path: out.map(Path::to_path_buf).unwrap_or_default(),
                source,
            },
        )
    })?;
    // A sweep's cells keep their data files in folders of their own (`users=4/summary.json`):
    // they come along, so that `Results.plot` can redraw the cells too.
    let files: DataFiles = files
        .into_iter()
        .filter(|f| {
            let base = f.name.rsplit('/').next().unwrap_or(&f.name);
            DATA_FILES.contains(&base)
        })
        .map(|f| (f.name, f.bytes))
        .collect();
    Ok(files)
}

/// `specprobe validate`: the checked scenario as text.
#[pyfunction]
#[pyo3(signature = (scenario, *, json=false))]
fn validate(py: Python<'_>, scenario: &str, json: bool) -> PyResult<String> {
    let loaded = load(py, scenario, json)?;
    commands::validate_scenario(loaded).map_err(|e| command_error(py, &e))
}

/// `specprobe plot`: redraws the charts and report of a results folder.
#[pyfunction]
#[pyo3(signature = (results, *, formats=None))]
fn plot(py: Python<'_>, results: PathBuf, formats: Option<Vec<String>>) -> PyResult<Vec<PathBuf>> {
    let charts = chart_options(formats)?;
    let cancel = Cancel::new();
    let outcome = interruptible(py, &cancel, || commands::plot(&results, &charts, &cancel))?;
    outcome.map(|o| o.files).map_err(|e| command_error(py, &e))
}

/// `specprobe merge`: combines shards into the outputs of the unsharded run.
#[pyfunction]
#[pyo3(signature = (inputs, *, out=None, force=false, formats=None))]
fn merge(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    out: Option<PathBuf>,
    force: bool,
    formats: Option<Vec<String>>,
) -> PyResult<PathBuf> {
    let cancel = Cancel::new();
    let args = MergeArgs {
        inputs,
        out,
        charts: chart_options(formats)?,
        force,
        cancel: cancel.clone(),
    };
    let outcome = interruptible(py, &cancel, || commands::merge(&args))?;
    outcome.map(|o| o.out).map_err(|e| command_error(py, &e))
}

/// `specprobe compare`: runs or loads each input and draws them on shared axes.
#[pyfunction]
#[pyo3(signature = (inputs, *, out=None, runs=None, horizon=None, seed=None, threads=None,
    force=false, formats=None))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    out: Option<PathBuf>,
    runs: Option<u64>,
    horizon: Option<u64>,
    seed: Option<u64>,
    threads: Option<usize>,
    force: bool,
    formats: Option<Vec<String>>,
) -> PyResult<PathBuf> {
    let cancel = Cancel::new();
    let args = CompareArgs {
        inputs,
        out,
        run: RunArgs {
            overrides: Overrides {
                runs,
                horizon,
                seed,
                users: None,
            },
            threads,
            charts: chart_options(formats)?,
            force,
            cancel: cancel.clone(),
            ..RunArgs::default()
        },
    };
    let outcome = interruptible(py, &cancel, || commands::compare(&args))?;
    outcome.map(|o| o.out).map_err(|e| command_error(py, &e))
}

/// The policies' catalogue, as `specprobe policies` prints it.
#[pyfunction]
fn policies() -> String {
    commands::policies()
}

#[pymodule]
fn _specprobe(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", specprobe::VERSION)?;
    m.add("MAX_THREADS", specprobe::MAX_THREADS)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(plot, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_class::<env::VecWorld>()?;
    m.add_class::<env::ProbeWorld>()?;
    m.add_class::<env::ProbeVecWorld>()?;
    Ok(())
}
