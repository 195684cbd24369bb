//! Primary-user on/off traffic: alternating idle and busy periods with general holding-time
//! laws, in continuous time measured in slots (`OnOff(idle: Exponential(mean: 20.0), busy:
//! LogNormal(mu: 1.2, sigma: 0.8))`). The alternating renewal model of López-Benítez and
//! Casadevall's continuous-time occupancy models (IEEE Trans. Veh. Technol. 62(5), 2013).
//!
//! A probe reads the state at the instant it happens (slot start plus the probing delay before
//! it, see the slot duration). Each run starts in equilibrium, exactly: the process is idle at
//! time 0 with probability θ = E[idle]/(E[idle] + E[busy]) and the current period's remaining
//! length is drawn from that law's equilibrium residual life ([`crate::model::holding`]), so no burn-in
//! is needed. Periods are drawn in order from the channel's own sequential stream until they
//! pass the instant asked: the path never depends on when it is asked, and the work of a query
//! is the number of periods crossed.

use crate::util::math;
use super::{Process, ProcessSpec, ProcessStats, SpecContext, SpecProblem, Step, period_stats};
use crate::model::holding::{Holding, HoldingSpec};
use crate::util::crn::Counter;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `OnOff(idle: Exponential(mean: 20.0), busy: LogNormal(mu: 1.2, sigma: 0.8))`: alternating
/// idle and busy periods, in slots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OnOffSpec {
    /// Idle-period law.
    pub(crate) idle: HoldingSpec,
    /// Busy-period law.
    pub(crate) busy: HoldingSpec,
}

impl ProcessSpec for OnOffSpec {
    type Process = OnOff;

    fn check(&self, _cx: &mut SpecContext<'_>) -> Result<OnOff, Vec<SpecProblem>> {
        let law = |spec: &HoldingSpec, name: &'static str| {
            Holding::new(spec).map_err(|e| {
                SpecProblem::at(&[Step::Field(name), Step::Field(e.param)], e.to_string())
            })
        };
        // A path draws about one period per mean period crossed (the renewal theorem), so a
        // tiny mean is a CPU bomb that a work estimate in slots cannot see: bounded here.
        let law = |spec: &HoldingSpec, name: &'static str| {
            law(spec, name).and_then(|h| {
                if h.mean() >= MIN_MEAN_PERIOD {
                    Ok(h)
                } else {
                    Err(SpecProblem::at(
                        &[Step::Field(name)],
                        format!(
                            "mean period {:e} slots is below {MIN_MEAN_PERIOD} slot, the shortest allowed (a path would draw more than {} periods per slot)",
                            h.mean(),
                            (1.0 / MIN_MEAN_PERIOD) as u64
                        ),
                    ))
                }
            })
        };
        match (law(&self.idle, "idle"), law(&self.busy, "busy")) {
            (Ok(i), Ok(b)) => Ok(OnOff::new(i, b)),
            (i, b) => Err([i.err(), b.err()].into_iter().flatten().collect()),
        }
    }
}

/// Shortest mean idle or busy period, in slots: a thousandth of a slot, so that a path draws
/// at most about a thousand periods per slot on average.
pub(crate) const MIN_MEAN_PERIOD: f64 = 1e-3;

/// On/off occupancy.
#[derive(Clone, Debug)]
pub(crate) struct OnOff {
    idle: Holding,
    busy: Holding,
    theta: f64,
    /// The load level of a López-Benítez preset this is (see `lopez_benitez.rs`), and its unit.
    preset: Option<(String, f64)>,
}

/// One player's position on an on/off path.
#[derive(Clone, Debug)]
pub(crate) struct OnOffState {
    draws: Counter,
    started: bool,
    idle: bool,
    /// End of the current period (continuous time in slots from the start of slot 1).
    end: f64,
    /// Periods drawn so far.
    pub periods: u64,
}

impl OnOff {
    /// Alternating periods with the given holding-time laws.
    pub(crate) fn new(idle: Holding, busy: Holding) -> OnOff {
        let theta = idle.mean() / (idle.mean() + busy.mean());
        OnOff {
            idle,
            busy,
            theta,
            preset: None,
        }
    }

    /// A named preset: the same process, described by its name and load.
    pub(crate) fn preset(idle: Holding, busy: Holding, load: String, unit: f64) -> OnOff {
        OnOff {
            preset: Some((load, unit)),
            ..OnOff::new(idle, busy)
        }
    }
}

impl Process for OnOff {
    type State = OnOffState;

    fn start(&self, key: u64) -> OnOffState {
        OnOffState {
            draws: Counter::at(key, 0),
            started: false,
            idle: false,
            end: 0.0,
            periods: 0,
        }
    }

    fn idle(&self, s: &mut OnOffState, slot: u64, offset: f64) -> bool {
        let instant = (slot - 1) as f64 + offset;
        if !s.started {
            s.started = true;
            s.idle = s.draws.random::<f64>() < self.theta;
            let law = if s.idle { &self.idle } else { &self.busy };
            s.end = law.sample_residual(&mut s.draws);
            s.periods += 1;
        }
        while s.end <= instant {
            s.idle = !s.idle;
            let law = if s.idle { &self.idle } else { &self.busy };
            s.end += law.sample(&mut s.draws);
            s.periods += 1;
        }
        s.idle
    }

    fn idle_until(&self, s: &OnOffState, slot: u64) -> f64 {
        // The current period's end, from the slot's start (continuous time in slots).
        if s.idle {
            s.end - (slot - 1) as f64
        } else {
            0.0
        }
    }

    fn theta_at(&self, _slot: u64) -> f64 {
        self.theta
    }

    fn stats(&self, _horizon: u64) -> ProcessStats {
        let mut stats = period_stats(self.theta, self.idle.mean(), self.busy.mean());
        // Exponential periods make a continuous-time Markov chain: the autocorrelation at lag
        // one slot is exp(−(1/m_idle + 1/m_busy)).
        use crate::model::holding::HoldingSpec::Exponential;
        if let (Exponential { mean: i }, Exponential { mean: b }) =
            (self.idle.spec(), self.busy.spec())
        {
            stats.autocorrelation = Some(math::exp(-(1.0 / i + 1.0 / b)));
        }
        stats
    }

    fn describe(&self) -> String {
        if let Some((load, unit)) = &self.preset {
            return format!("LopezBenitez(load: {load}, unit: {unit})");
        }
        format!(
            "OnOff(idle: {}, busy: {})",
            crate::util::ron_text::to_ron_line(self.idle.spec()),
            crate::util::ron_text::to_ron_line(self.busy.spec())
        )
    }

    fn notes(&self) -> Vec<String> {
        match &self.preset {
            Some((load, _)) => vec![format!(
                "López-Benítez and Casadevall (2013), {load} load: generalized Pareto idle and busy periods, duty cycle {:.3}",
                1.0 - self.theta
            )],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::holding::HoldingSpec;
    use crate::util::crn::{Purpose, RunKey};

    fn on_off(idle: HoldingSpec, busy: HoldingSpec) -> OnOff {
        OnOff::new(Holding::new(&idle).unwrap(), Holding::new(&busy).unwrap())
    }

    /// Sampled every slot over 2·10⁶ slots: idle frequency within 5 standard errors (inflated
    /// for correlation by the mean cycle length), mean idle and busy run lengths (in slots,
    /// measured on the sampled path) and, for exponential periods, the lag-1 autocorrelation.
    #[test]
    fn empirical_statistics_match_theory() {
        let n = 2_000_000u64;
        let cases = [
            (
                HoldingSpec::Exponential { mean: 20.0 },
                HoldingSpec::Exponential { mean: 8.0 },
            ),
            (
                HoldingSpec::Gamma {
                    shape: 3.0,
                    scale: 4.0,
                },
                HoldingSpec::LogNormal {
                    mu: 1.2,
                    sigma: 0.8,
                },
            ),
        ];
        for (idle, busy) in cases {
            let p = on_off(idle.clone(), busy.clone());
            let key = RunKey::new(5, 0, 0).channel(1, Purpose::Occupancy);
            let mut s = p.start(key);
            let path: Vec<bool> = (1..=n).map(|t| p.idle(&mut s, t, 0.0)).collect();
            let freq = path.iter().filter(|&&x| x).count() as f64 / n as f64;
            let cycle = p.idle.mean() + p.busy.mean();
            let se = (p.theta * (1.0 - p.theta) * 2.0 * cycle / n as f64).sqrt();
            assert!(
                (freq - p.theta).abs() < 5.0 * se,
                "{idle:?}: {freq} vs {}",
                p.theta
            );
            // The number of periods drawn matches n / cycle within 5%.
            let periods = s.periods as f64;
            assert!(
                (periods / (2.0 * n as f64 / cycle) - 1.0).abs() < 0.05,
                "{periods}"
            );
            if let Some(rho) = p.stats(n).autocorrelation {
                let x: Vec<f64> = path
                    .iter()
                    .map(|&v| f64::from(u8::from(v)) - freq)
                    .collect();
                let c0: f64 = x.iter().map(|v| v * v).sum();
                let c1: f64 = x.windows(2).map(|w| w[0] * w[1]).sum();
                let se = ((1.0 + rho * rho) / (1.0 - rho * rho) / n as f64).sqrt();
                assert!((c1 / c0 - rho).abs() < 5.0 * se, "ρ̂ {} vs {rho}", c1 / c0);
            }
        }
    }

    /// Mean lengths of the continuous periods themselves (drawn in order, the first one
    /// excluded as it is a residual), within 5 standard errors.
    #[test]
    fn period_means_match_the_laws() {
        let p = on_off(
            HoldingSpec::Weibull {
                shape: 0.8,
                scale: 10.0,
            },
            HoldingSpec::GeneralizedPareto {
                shape: 0.2,
                scale: 5.0,
                location: 1.0,
            },
        );
        let mut draws = Counter::at(99, 0);
        for law in [&p.idle, &p.busy] {
            let xs: Vec<f64> = (0..200_000).map(|_| law.sample(&mut draws)).collect();
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64).sqrt();
            assert!((m - law.mean()).abs() < 5.0 * sd / (xs.len() as f64).sqrt());
        }
    }

    /// A probe later in the slot reads a later instant of the same path.
    #[test]
    fn instants_inside_a_slot_follow_the_path() {
        let p = on_off(
            HoldingSpec::Exponential { mean: 0.3 },
            HoldingSpec::Exponential { mean: 0.3 },
        );
        let key = 12345;
        let mut fine = p.start(key);
        let states: Vec<bool> = (0..1000)
            .map(|i| p.idle(&mut fine, 1 + i / 10, (i % 10) as f64 / 10.0))
            .collect();
        let mut coarse = p.start(key);
        for i in (0..1000).step_by(7) {
            assert_eq!(
                p.idle(&mut coarse, 1 + i / 10, (i % 10) as f64 / 10.0),
                states[i as usize]
            );
        }
        // Periods of 0.3 slots: the state changes inside slots.
        assert!(states.windows(2).filter(|w| w[0] != w[1]).count() > 100);
    }

    /// Stationary start: at slot 1 the idle fraction over 20 000 runs is θ (binomial, 5 sd),
    /// even with long periods that a fixed start would carry for hundreds of slots.
    #[test]
    fn runs_start_in_equilibrium() {
        let p = on_off(
            HoldingSpec::LogNormal {
                mu: 6.0,
                sigma: 1.0,
            },
            HoldingSpec::Exponential { mean: 100.0 },
        );
        let runs = 20_000u64;
        let idle = (0..runs)
            .filter(|&r| {
                let mut s = p.start(RunKey::new(1, 0, r).channel(0, Purpose::Occupancy));
                p.idle(&mut s, 50, 0.0)
            })
            .count() as f64;
        let sd = (runs as f64 * p.theta * (1.0 - p.theta)).sqrt();
        assert!((idle - p.theta * runs as f64).abs() < 5.0 * sd, "{idle}");
    }
}
