//! What one probe finds, as the slot loop asks for it: the channel's state at the probe's
//! instant, the probe's cost and the sensed state, from the run's common random numbers.
//!
//! Two implementations, and the slot loop is monomorphised over both: [`Simple`] for the papers'
//! setting (i.i.d. slots, a constant or Bernoulli cost, perfect sensing, no slot duration),
//! where a probe is two counter-based draws against precomputed thresholds and nothing else,
//! and [`General`] for every occupancy process, cost law and sensing model. Both give exactly
//! the same values for the channels `Simple` accepts: it only skips the dispatch.

use crate::model::channel::{Channel, ChannelKeys, Environment};
use crate::model::cost::{CostModel, ProbeCost};
use crate::model::law::LawSpec;
use crate::model::occupancy::{Occupancy, OccupancyState};
use crate::model::time_left::TimeLeft;
use crate::util::crn;

/// What one probe found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Probe {
    /// Whether the channel was truly idle.
    pub(crate) idle: bool,
    /// What the user sensed (the cascade stops at the first channel sensed idle).
    pub(crate) sensed: bool,
    /// What the probe cost.
    pub(crate) cost: ProbeCost,
}

impl Probe {
    /// The cost a learner observes for this probe: its bandit cost, and under
    /// `reward: TimeLeft` the time it used in reward units too.
    #[inline(always)]
    pub(crate) fn observed_cost(&self, time_left: Option<&TimeLeft>) -> f64 {
        match time_left {
            None => self.cost.cost,
            Some(tl) => tl.observed_cost(self.cost.cost, self.cost.delay),
        }
    }
}

/// The channels of one experiment as the slot loop probes them.
pub(crate) trait Spectrum {
    /// The slot duration in delay units (probes that would start after it are not made).
    fn duration(&self) -> Option<f64>;

    /// Probes channel `i` in slot `t`, `offset` ∈ [0, 1) into it, for the player whose
    /// occupancy path states are `states`, from the run's `keys`.
    fn probe(
        &self,
        keys: &[ChannelKeys],
        states: &mut [OccupancyState],
        i: usize,
        t: u64,
        offset: f64,
    ) -> Probe;

    /// After a probe of channel `i` in slot `t` found it idle, when (a fraction into the
    /// slot) its idle period ends: the primary user's return, infinite when it holds for the
    /// slot (see [`crate::model::occupancy::Process::idle_until`]).
    fn returns_at(&self, states: &[OccupancyState], i: usize, t: u64) -> f64;
}

/// Every channel model: occupancy process, cost model and sensing, dispatched per probe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct General<'a> {
    channels: &'a [Channel],
    duration: Option<f64>,
}

impl<'a> General<'a> {
    /// The channels of `env`.
    pub(crate) fn of(env: &'a Environment) -> General<'a> {
        General {
            channels: env.channels(),
            duration: env.slot_duration(),
        }
    }
}

impl Spectrum for General<'_> {
    #[inline]
    fn duration(&self) -> Option<f64> {
        self.duration
    }

    #[inline]
    fn returns_at(&self, states: &[OccupancyState], i: usize, t: u64) -> f64 {
        self.channels[i].occupancy().idle_until(&states[i], t)
    }

    #[inline]
    fn probe(
        &self,
        keys: &[ChannelKeys],
        states: &mut [OccupancyState],
        i: usize,
        t: u64,
        offset: f64,
    ) -> Probe {
        let ch = &self.channels[i];
        let idle = ch.occupancy().idle(&mut states[i], t, offset);
        let key = &keys[i];
        let cost = ch.cost().sample_at(key.cost, key.delay, t);
        let sensing = ch.sensing();
        let sensed = if sensing.is_perfect() {
            idle
        } else {
            sensing.sense(idle, crn::bits(key.sensing, t))
        };
        Probe { idle, sensed, cost }
    }
}

/// A cost the papers' setting draws: a constant, or 1 with some probability.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PlainCost {
    Constant(f64),
    /// The counter-stream threshold of a 1.
    Bernoulli(u64),
}

/// The papers' setting: i.i.d. slots, a constant or Bernoulli cost, perfect sensing, no slot
/// duration. A probe is the occupancy draw and (for a Bernoulli cost) the cost draw.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Simple {
    idle: Vec<u64>,
    cost: Vec<PlainCost>,
}

impl Simple {
    /// The simple form of `env`'s channels, when every channel is in the papers' setting.
    pub(crate) fn of(env: &Environment) -> Option<Simple> {
        if env.slot_duration().is_some() {
            return None;
        }
        let mut idle = Vec::with_capacity(env.len());
        let mut cost = Vec::with_capacity(env.len());
        for ch in env.channels() {
            if !ch.occupancy().is_iid() || !ch.sensing().is_perfect() {
                return None;
            }
            idle.push(crn::threshold(ch.occupancy().theta_at(1)));
            cost.push(PlainCost::of(ch.cost())?);
        }
        Some(Simple { idle, cost })
    }
}

impl PlainCost {
    /// The cost model as a plain draw, if it is one.
    fn of(cost: &CostModel) -> Option<PlainCost> {
        match cost {
            CostModel::Plain(law) => match *law.spec() {
                LawSpec::Constant(v) => Some(PlainCost::Constant(v)),
                LawSpec::Bernoulli(p) => Some(PlainCost::Bernoulli(crn::threshold(p))),
                _ => None,
            },
            CostModel::Split(_) => None,
        }
    }

    /// The probe's cost in slot `t` from the channel's cost key (the draw `General` makes).
    #[inline(always)]
    fn at(self, key: u64, t: u64) -> ProbeCost {
        let y = match self {
            PlainCost::Constant(v) => v,
            PlainCost::Bernoulli(threshold) => {
                if crn::bernoulli(crn::bits(key, t), threshold) {
                    1.0
                } else {
                    0.0
                }
            }
        };
        ProbeCost {
            energy: y,
            delay: 0.0,
            cost: y,
        }
    }
}

/// Any occupancy process with perfect sensing, a constant or Bernoulli cost and no slot
/// duration: a probe is the process's query and the cost's draw, without [`General`]'s
/// dispatch on cost models and sensing (which was a third of a probe on Markov channels in
/// the training environment's step). [`Simple`] is the i.i.d. case, which also skips the
/// path states.
#[derive(Clone, Debug)]
pub(crate) struct Plain {
    occupancy: Vec<Occupancy>,
    cost: Vec<PlainCost>,
}

impl Plain {
    /// The plain form of `env`'s channels, when every channel has one.
    pub(crate) fn of(env: &Environment) -> Option<Plain> {
        if env.slot_duration().is_some() || env.time_left().is_some() {
            return None;
        }
        let channels = env.channels();
        let plain = |ch: &Channel| {
            ch.sensing()
                .is_perfect()
                .then(|| PlainCost::of(ch.cost()))?
        };
        Some(Plain {
            occupancy: channels.iter().map(|ch| ch.occupancy().clone()).collect(),
            cost: channels.iter().map(plain).collect::<Option<_>>()?,
        })
    }
}

impl Spectrum for Plain {
    #[inline]
    fn duration(&self) -> Option<f64> {
        None
    }

    #[inline]
    fn returns_at(&self, states: &[OccupancyState], i: usize, t: u64) -> f64 {
        self.occupancy[i].idle_until(&states[i], t)
    }

    #[inline(always)]
    fn probe(
        &self,
        keys: &[ChannelKeys],
        states: &mut [OccupancyState],
        i: usize,
        t: u64,
        offset: f64,
    ) -> Probe {
        let idle = self.occupancy[i].idle(&mut states[i], t, offset);
        Probe {
            idle,
            sensed: idle,
            cost: self.cost[i].at(keys[i].cost, t),
        }
    }
}

impl Spectrum for Simple {
    #[inline]
    fn duration(&self) -> Option<f64> {
        None
    }

    #[inline]
    fn returns_at(&self, _states: &[OccupancyState], _i: usize, _t: u64) -> f64 {
        // i.i.d. slots hold their state for the whole slot.
        f64::INFINITY
    }

    #[inline(always)]
    fn probe(
        &self,
        keys: &[ChannelKeys],
        _states: &mut [OccupancyState],
        i: usize,
        t: u64,
        _offset: f64,
    ) -> Probe {
        let key = &keys[i];
        let idle = crn::bernoulli(crn::bits(key.occupancy, t), self.idle[i]);
        Probe {
            idle,
            sensed: idle,
            cost: self.cost[i].at(key.cost, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::crn::RunKey;

    /// The plain form gives exactly what the general one gives, probe by probe and path state
    /// by path state, on every occupancy process (Markov, on/off, López-Benítez, piecewise,
    /// trace, i.i.d.: the shipped scenarios, and on/off with a plain cost, which no shipped
    /// scenario has); a channel with sensing errors, a split cost or a slot duration has no
    /// plain form.
    #[test]
    fn plain_probes_equal_general_probes() {
        use crate::scenario::{Scenario, load, parse};
        use std::collections::BTreeSet;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut scenarios: Vec<(String, Scenario)> = [
            "spectrum-markov.ron",
            "spectrum-onoff.ron",
            "spectrum-piecewise.ron",
            "spectrum-trace.ron",
            "spectrum-lopez-benitez.ron",
            "paper-fig1a.ron",
            "spectrum-sensing.ron",
            "energy-detector.ron",
            "jiang-2009-adaptive.ron",
        ]
        .into_iter()
        .map(|file| (file.to_string(), load(&root.join(file)).unwrap()))
        .collect();
        let on_off = r#"Regret(name: "plain-onoff", seed: 1, horizon: 100, runs: 1,
            channels: [
                (occupancy: OnOff(idle: Exponential(mean: 4.0), busy: Exponential(mean: 6.0)), cost: Bernoulli(0.3)),
                (occupancy: OnOff(idle: Weibull(shape: 0.8, scale: 3.0), busy: Gamma(shape: 2.0, scale: 2.0)), cost: Constant(0.2)),
            ],
            policies: [(policy: Oracle)])"#;
        scenarios.push((
            "on/off".into(),
            parse(on_off, &root.join("plain-onoff.ron")).unwrap(),
        ));
        let mut processes = BTreeSet::new();
        for (file, scenario) in scenarios {
            let Scenario::Regret(s) = scenario else {
                panic!("{file}: a regret scenario")
            };
            for exp in &s.experiments {
                let env = &exp.env;
                let Some(plain) = Plain::of(env) else {
                    let sensing = env.channels().iter().any(|c| !c.sensing().is_perfect());
                    let split = env
                        .channels()
                        .iter()
                        .any(|c| PlainCost::of(c.cost()).is_none());
                    assert!(sensing || split || env.slot_duration().is_some(), "{file}");
                    continue;
                };
                for ch in env.channels() {
                    // The variant's name: what `Debug` writes before its payload.
                    let name = format!("{:?}", ch.occupancy());
                    processes.insert(name[..name.find('(').unwrap_or(name.len())].to_string());
                }
                let general = General::of(env);
                let paths = crate::model::channel::Paths::new(env, RunKey::new(3, 0, 5));
                let (mut a, mut b) = (paths.occupancy.clone(), paths.occupancy.clone());
                for t in 1..3000 {
                    // Each channel in some slots only, as a cascade asks.
                    for i in (0..env.len()).filter(|i| (t * 7 + i * 3) % (i + 2) != 0) {
                        let (p, g) = (
                            plain.probe(&paths.keys, &mut a, i, t as u64, 0.0),
                            general.probe(&paths.keys, &mut b, i, t as u64, 0.0),
                        );
                        assert_eq!(p, g, "{file}: channel {i}, slot {t}");
                    }
                }
            }
        }
        let every: BTreeSet<String> = crate::model::occupancy::OccupancySpec::NAMES
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(processes, every);
    }

    /// The fast path gives exactly what the general one gives, probe by probe.
    #[test]
    fn simple_probes_equal_general_probes() {
        use crate::model::law::Law;
        let env = Environment::new(
            [(0.8, 0.55), (0.3, 0.0), (0.0, 1.0), (1.0, 0.25)]
                .iter()
                .map(|&(theta, c)| {
                    let law = if c == 0.25 {
                        Law::new(&LawSpec::Constant(c)).unwrap()
                    } else {
                        Law::new(&LawSpec::Bernoulli(c)).unwrap()
                    };
                    Channel::new(theta, CostModel::Plain(law))
                })
                .collect(),
        );
        let simple = Simple::of(&env).expect("the papers' setting");
        let general = General::of(&env);
        let paths = crate::model::channel::Paths::new(&env, RunKey::new(7, 0, 3));
        let mut a = paths.occupancy.clone();
        let mut b = paths.occupancy.clone();
        for t in 1..2000 {
            for i in 0..4 {
                assert_eq!(
                    simple.probe(&paths.keys, &mut a, i, t, 0.0),
                    general.probe(&paths.keys, &mut b, i, t, 0.0)
                );
            }
        }
    }
}
