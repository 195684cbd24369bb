//! Named on/off presets from a measurement campaign: López-Benítez and Casadevall, "Time-
//! dimension models of spectrum usage for the analysis, design and simulation of cognitive
//! radio networks", IEEE Trans. Veh. Technol. 62(5), 2013. They fit the busy and idle periods
//! they measured with generalized Pareto laws (location μ, scale σ, shape ξ) at five load
//! levels, from very low to very high; a preset is the [`OnOff`] process with those two laws.
//!
//! `LopezBenitez(load: Medium)` uses the fitted parameters as they are, one unit of the fit's
//! time per slot; `unit: u` says how many slots one unit of the fit is (`unit: 0.1`: a slot is
//! ten units long). The parameters are those of the paper's table as transcribed by Puschmann's
//! MobilitySim (TU Ilmenau, 2014); their means give duty cycles from 0.091 (very low) to 0.934
//! (very high), the range the paper reports.

use super::on_off::{MIN_MEAN_PERIOD, OnOff};
use super::{ProcessSpec, SpecContext, SpecProblem, Step};
use crate::model::holding::{Holding, HoldingSpec};
use serde::{Deserialize, Serialize};

/// The five load levels of the campaign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Load {
    /// Duty cycle about 0.09.
    VeryLow,
    /// Duty cycle about 0.25.
    Low,
    /// Duty cycle about 0.5.
    Medium,
    /// Duty cycle about 0.77.
    High,
    /// Duty cycle about 0.93.
    VeryHigh,
}

/// A generalized Pareto fit: location μ, scale σ, shape ξ.
type Fit = (f64, f64, f64);

/// The fits of (busy, idle) periods at each load.
const FITS: [(Load, [Fit; 2]); 5] = [
    (Load::VeryLow, [(3.5150, 1.6960, 0.0285), (3.6100, 38.3633, 0.2125)]),
    (Load::Low, [(3.5150, 2.6240, 0.1884), (3.5780, 10.9356, 0.1784)]),
    (Load::Medium, [(3.5150, 5.1483, 0.1978), (3.5160, 4.6583, 0.2156)]),
    (Load::High, [(3.5470, 10.7968, 0.1929), (3.5310, 2.6272, 0.2119)]),
    (Load::VeryHigh, [(3.5940, 52.8611, 0.2377), (3.5160, 1.6609, 0.0068)]),
];

fn default_unit() -> f64 {
    1.0
}

/// `LopezBenitez(load: Medium, unit: 1.0)`: the campaign's on/off fit at one load level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LopezBenitezSpec {
    /// The load level.
    pub(crate) load: Load,
    /// Slots per unit of the fit's time (default 1).
    #[serde(default = "default_unit")]
    pub(crate) unit: f64,
}

impl LopezBenitezSpec {
    /// The generalized Pareto law of the busy (`0`) or idle (`1`) periods, in slots.
    fn law(&self, which: usize) -> HoldingSpec {
        let (_, fit) = FITS
            .iter()
            .find(|(l, _)| *l == self.load)
            .expect("every load has a fit");
        let (location, scale, shape) = fit[which];
        HoldingSpec::GeneralizedPareto {
            shape,
            scale: scale * self.unit,
            location: location * self.unit,
        }
    }
}

impl ProcessSpec for LopezBenitezSpec {
    type Process = OnOff;

    fn check(&self, _cx: &mut SpecContext<'_>) -> Result<OnOff, Vec<SpecProblem>> {
        let fail = |rule: String| Err(vec![SpecProblem::at(&[Step::Field("unit")], rule)]);
        if !(self.unit.is_finite() && self.unit > 0.0) {
            return fail(format!("must be a positive number of slots (got {})", self.unit));
        }
        let (busy, idle) = (Holding::new(&self.law(0)), Holding::new(&self.law(1)));
        match (busy, idle) {
            (Ok(busy), Ok(idle)) if busy.mean().min(idle.mean()) >= MIN_MEAN_PERIOD => {
                Ok(OnOff::preset(idle, busy, format!("{:?}", self.load), self.unit))
            }
            (Ok(_), Ok(_)) => fail(format!(
                "makes the mean periods shorter than {MIN_MEAN_PERIOD} slot (got {}): a larger unit",
                self.unit
            )),
            (b, i) => fail(
                [b.err(), i.err()]
                    .into_iter()
                    .flatten()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::occupancy::Process;

    fn built(load: Load, unit: f64) -> OnOff {
        let mut traces = Default::default();
        let mut cx = SpecContext {
            horizon: 1000,
            base: std::path::Path::new("."),
            traces: &mut traces,
        };
        LopezBenitezSpec { load, unit }.check(&mut cx).unwrap()
    }

    #[test]
    fn the_five_loads_span_the_papers_duty_cycles_in_order() {
        let duty: Vec<f64> = [Load::VeryLow, Load::Low, Load::Medium, Load::High, Load::VeryHigh]
            .into_iter()
            .map(|l| 1.0 - built(l, 1.0).stats(1000).theta)
            .collect();
        assert!(duty.windows(2).all(|w| w[0] < w[1]), "{duty:?}");
        assert!((duty[0] - 0.091).abs() < 0.002, "{duty:?}");
        assert!((duty[4] - 0.934).abs() < 0.002, "{duty:?}");
        // The mean busy period of a generalized Pareto law is μ + σ/(1 − ξ).
        let vh = built(Load::VeryHigh, 1.0).stats(1000);
        let busy = 3.5940 + 52.8611 / (1.0 - 0.2377);
        assert!((vh.mean_busy.unwrap() - busy).abs() < 1e-9);
    }

    #[test]
    fn the_unit_scales_the_periods_not_the_duty_cycle() {
        let (a, b) = (built(Load::Medium, 1.0), built(Load::Medium, 0.1));
        let (sa, sb) = (a.stats(1000), b.stats(1000));
        assert!((sa.theta - sb.theta).abs() < 1e-12);
        assert!((sa.mean_idle.unwrap() * 0.1 - sb.mean_idle.unwrap()).abs() < 1e-9);
        assert!(a.notes()[0].contains("duty cycle 0.5"), "{:?}", a.notes());
        assert!(a.describe().starts_with("LopezBenitez(load: Medium"), "{}", a.describe());
    }
}
