//! Holding-time laws of primary-user on/off traffic: how long a channel stays idle or busy, in
//! slots, real-valued.
//!
//! The laws are those fitted to measured on/off periods by López-Benítez and Casadevall
//! ("Time-dimension models of spectrum usage for the analysis, design and simulation of
//! cognitive radio networks", IEEE Trans. Veh. Technol. 62(5), 2013): exponential, log-normal,
//! gamma, Weibull and, the best fit at high time resolution, the generalized Pareto law
//! `F(x) = 1 − (1 + ξ(x − μ)/σ)^(−1/ξ)` with location μ (the shortest period), scale σ and shape
//! ξ. Each law also samples its **equilibrium residual life** exactly, so that a run starts in
//! the stationary regime of the alternating renewal process:
//! - the period straddling time 0 is length-biased (density `x f(x)/E[X]`) and time 0 falls
//!   uniformly inside it, so the residual is `U·X̃` with `X̃` length-biased: Gamma(k, θ) →
//!   Gamma(k + 1, θ); exponential (Gamma(1, m)) → Gamma(2, m), whose `U·X̃` is again
//!   exponential; LogNormal(μ, σ) → LogNormal(μ + σ², σ); Weibull(k, λ) → `λ·Y^(1/k)` with
//!   Y ~ Gamma(1 + 1/k, 1);
//! - the generalized Pareto law's residual has the closed form (for ξ < 1): with probability
//!   `μ/E[X]` uniform on [0, μ), otherwise `μ +` GP(ξ/(1 − ξ), σ/(1 − ξ)).

use crate::util::det_float::Det;
use crate::util::math;
use rand::Rng;
use rand::RngExt;
use rand_distr::{Distribution, Gamma, LogNormal, Weibull};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A holding-time law as written in scenario files (in slots).
///
/// ```ron
/// Exponential(mean: 20.0)
/// LogNormal(mu: 1.2, sigma: 0.8)                  // ln X ~ N(mu, sigma²)
/// Gamma(shape: 2.0, scale: 5.0)
/// Weibull(shape: 0.7, scale: 10.0)
/// GeneralizedPareto(shape: 0.3, scale: 4.0, location: 1.0)   // location defaults to 0
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) enum HoldingSpec {
    /// Exponential with the given mean.
    Exponential {
        /// Mean holding time (> 0).
        mean: f64,
    },
    /// `ln X ~ N(mu, sigma²)`.
    LogNormal {
        /// Mean of `ln X`.
        mu: f64,
        /// Standard deviation of `ln X` (> 0).
        sigma: f64,
    },
    /// Gamma with shape k and scale θ (mean kθ).
    Gamma {
        /// Shape k (> 0).
        shape: f64,
        /// Scale θ (> 0).
        scale: f64,
    },
    /// Weibull with shape k and scale λ (mean λ Γ(1 + 1/k)).
    Weibull {
        /// Shape k (> 0).
        shape: f64,
        /// Scale λ (> 0).
        scale: f64,
    },
    /// Generalized Pareto with shape ξ < 1, scale σ and location μ ≥ 0.
    GeneralizedPareto {
        /// Shape ξ (< 1, so that the mean is finite; ξ < 0 bounds the support).
        shape: f64,
        /// Scale σ (> 0).
        scale: f64,
        /// Location μ ≥ 0, the shortest period (default 0).
        #[serde(default)]
        location: f64,
    },
}

/// A holding-time parameter that breaks its rule.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{law}: `{param}` {rule} (got {value})")]
pub(crate) struct HoldingError {
    /// The law's name.
    pub law: &'static str,
    /// The parameter.
    pub param: &'static str,
    /// The rule.
    pub rule: &'static str,
    /// The value.
    pub value: f64,
}

/// A checked holding-time law: exact mean, period and residual samplers.
#[derive(Clone, Debug)]
pub(crate) struct Holding {
    spec: HoldingSpec,
    mean: f64,
    // Shared: drawn once per period, not per probe, and an on/off channel holds two laws of
    // a scenario's possibly million copies of one channel.
    kind: Arc<Kind>,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Gamma(k, θ) and its length-biased Gamma(k + 1, θ) (the exponential is k = 1).
    Gamma { law: Gamma<Det>, biased: Gamma<Det> },
    LogNormal {
        law: LogNormal<Det>,
        biased: LogNormal<Det>,
    },
    Weibull {
        law: Weibull<Det>,
        scale: f64,
        inv_shape: f64,
        biased: Gamma<Det>,
    },
    Pareto {
        shape: f64,
        scale: f64,
        location: f64,
    },
}

impl HoldingSpec {
    /// The law's name in scenario files.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            HoldingSpec::Exponential { .. } => "Exponential",
            HoldingSpec::LogNormal { .. } => "LogNormal",
            HoldingSpec::Gamma { .. } => "Gamma",
            HoldingSpec::Weibull { .. } => "Weibull",
            HoldingSpec::GeneralizedPareto { .. } => "GeneralizedPareto",
        }
    }
}

impl Holding {
    /// Checks a spec and builds the law.
    pub(crate) fn new(spec: &HoldingSpec) -> Result<Holding, HoldingError> {
        let law = spec.name();
        let positive = |param: &'static str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(value)
            } else {
                Err(HoldingError {
                    law,
                    param,
                    rule: "must be a positive finite number",
                    value,
                })
            }
        };
        let gamma = |k: f64, theta: f64| {
            Gamma::new(Det(k), Det(theta)).expect("parameters checked positive")
        };
        let (mean, kind) = match *spec {
            HoldingSpec::Exponential { mean } => {
                let m = positive("mean", mean)?;
                (
                    m,
                    Kind::Gamma {
                        law: gamma(1.0, m),
                        biased: gamma(2.0, m),
                    },
                )
            }
            HoldingSpec::Gamma { shape, scale } => {
                let (k, t) = (positive("shape", shape)?, positive("scale", scale)?);
                (
                    k * t,
                    Kind::Gamma {
                        law: gamma(k, t),
                        biased: gamma(k + 1.0, t),
                    },
                )
            }
            HoldingSpec::LogNormal { mu, sigma } => {
                if !mu.is_finite() {
                    return Err(HoldingError {
                        law,
                        param: "mu",
                        rule: "must be a finite number",
                        value: mu,
                    });
                }
                let s = positive("sigma", sigma)?;
                let ln = |m: f64| LogNormal::new(Det(m), Det(s)).expect("parameters checked");
                (
                    math::exp(mu + 0.5 * s * s),
                    Kind::LogNormal {
                        law: ln(mu),
                        biased: ln(mu + s * s),
                    },
                )
            }
            HoldingSpec::Weibull { shape, scale } => {
                let (k, l) = (positive("shape", shape)?, positive("scale", scale)?);
                (
                    l * math::gamma(1.0 + 1.0 / k),
                    Kind::Weibull {
                        law: Weibull::new(Det(l), Det(k)).expect("parameters checked positive"),
                        scale: l,
                        inv_shape: 1.0 / k,
                        biased: gamma(1.0 + 1.0 / k, 1.0),
                    },
                )
            }
            HoldingSpec::GeneralizedPareto {
                shape,
                scale,
                location,
            } => {
                if !(shape.is_finite() && shape < 1.0) {
                    return Err(HoldingError {
                        law,
                        param: "shape",
                        rule: "must be a finite number below 1 (the mean is infinite from 1 on)",
                        value: shape,
                    });
                }
                let s = positive("scale", scale)?;
                if !(location.is_finite() && location >= 0.0) {
                    return Err(HoldingError {
                        law,
                        param: "location",
                        rule: "must be a finite number ≥ 0",
                        value: location,
                    });
                }
                (
                    location + s / (1.0 - shape),
                    Kind::Pareto {
                        shape,
                        scale: s,
                        location,
                    },
                )
            }
        };
        if !mean.is_finite() || mean <= 0.0 {
            return Err(HoldingError {
                law,
                param: "mean",
                rule: "of the law must be positive and finite",
                value: mean,
            });
        }
        Ok(Holding {
            spec: spec.clone(),
            mean,
            kind: Arc::new(kind),
        })
    }

    /// The spec.
    pub(crate) fn spec(&self) -> &HoldingSpec {
        &self.spec
    }

    /// The exact mean holding time, in slots.
    pub(crate) fn mean(&self) -> f64 {
        self.mean
    }

    /// One holding time.
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &*self.kind {
            Kind::Gamma { law, .. } => law.sample(rng).0,
            Kind::LogNormal { law, .. } => law.sample(rng).0,
            Kind::Weibull { law, .. } => law.sample(rng).0,
            Kind::Pareto {
                shape,
                scale,
                location,
            } => location + pareto(*shape, *scale, rng),
        }
    }

    /// The time left in the period that straddles an instant of the stationary process (the
    /// equilibrium residual life; see the module docs).
    pub(crate) fn sample_residual<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u: f64 = rng.random();
        match &*self.kind {
            Kind::Gamma { biased, .. } => u * biased.sample(rng).0,
            Kind::LogNormal { biased, .. } => u * biased.sample(rng).0,
            Kind::Weibull {
                scale,
                inv_shape,
                biased,
                ..
            } => u * scale * math::powf(biased.sample(rng).0, *inv_shape),
            Kind::Pareto {
                shape,
                scale,
                location,
            } => {
                if u * self.mean < *location {
                    // Uniform on [0, μ): u·E[X] is uniform on [0, E[X]).
                    u * self.mean
                } else {
                    let xi = shape / (1.0 - shape);
                    location + pareto(xi, scale / (1.0 - shape), rng)
                }
            }
        }
    }
}

/// Generalized Pareto with location 0 by inversion: `σ((1 − U)^(−ξ) − 1)/ξ`, `−σ ln(1 − U)` at
/// ξ = 0.
fn pareto<R: Rng + ?Sized>(xi: f64, sigma: f64, rng: &mut R) -> f64 {
    let v = 1.0 - rng.random::<f64>(); // in (0, 1]
    if xi.abs() < 1e-12 {
        -sigma * math::ln(v)
    } else {
        sigma * (math::powf(v, -xi) - 1.0) / xi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laws() -> Vec<HoldingSpec> {
        vec![
            HoldingSpec::Exponential { mean: 20.0 },
            HoldingSpec::LogNormal {
                mu: 1.2,
                sigma: 0.8,
            },
            HoldingSpec::Gamma {
                shape: 2.5,
                scale: 3.0,
            },
            HoldingSpec::Weibull {
                shape: 0.7,
                scale: 6.0,
            },
            HoldingSpec::GeneralizedPareto {
                shape: 0.15,
                scale: 4.0,
                location: 1.0,
            },
            HoldingSpec::GeneralizedPareto {
                shape: -0.5,
                scale: 6.0,
                location: 0.0,
            },
        ]
    }

    /// E[X²] of each test law, exactly.
    fn second_moment(spec: &HoldingSpec) -> f64 {
        match *spec {
            HoldingSpec::Exponential { mean } => 2.0 * mean * mean,
            HoldingSpec::LogNormal { mu, sigma } => math::exp(2.0 * mu + 2.0 * sigma * sigma),
            HoldingSpec::Gamma { shape, scale } => shape * (shape + 1.0) * scale * scale,
            HoldingSpec::Weibull { shape, scale } => scale * scale * math::gamma(1.0 + 2.0 / shape),
            HoldingSpec::GeneralizedPareto {
                shape,
                scale,
                location,
            } => {
                let ey = scale / (1.0 - shape);
                let ey2 = 2.0 * scale * scale / ((1.0 - shape) * (1.0 - 2.0 * shape));
                location * location + 2.0 * location * ey + ey2
            }
        }
    }

    /// Means against 400 000 draws, and the equilibrium residual's mean against its exact
    /// value E[X²]/(2E[X]), each within 6 standard errors estimated from the draws (every test
    /// law has finite third moment, so both estimates have finite variance).
    #[test]
    fn means_and_residual_means_match_theory() {
        let mut rng = crate::util::rng::stream(3, 3, 3);
        let n = 400_000;
        let mean_sd = |xs: &[f64]| {
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64;
            (m, v.sqrt())
        };
        for spec in laws() {
            let law = Holding::new(&spec).unwrap();
            let xs: Vec<f64> = (0..n).map(|_| law.sample(&mut rng)).collect();
            let (m, sd) = mean_sd(&xs);
            assert!(
                (m - law.mean()).abs() < 6.0 * sd / (n as f64).sqrt(),
                "{spec:?}: mean {m} vs {}",
                law.mean()
            );
            let rs: Vec<f64> = (0..n).map(|_| law.sample_residual(&mut rng)).collect();
            let (rm, rsd) = mean_sd(&rs);
            let want = second_moment(&spec) / (2.0 * law.mean());
            assert!(
                (rm - want).abs() < 6.0 * rsd / (n as f64).sqrt(),
                "{spec:?}: residual mean {rm} vs {want}"
            );
            assert!(xs.iter().chain(&rs).all(|x| x.is_finite() && *x >= 0.0));
        }
    }

    #[test]
    fn bad_parameters_name_the_parameter() {
        let err = Holding::new(&HoldingSpec::GeneralizedPareto {
            shape: 1.0,
            scale: 1.0,
            location: 0.0,
        })
        .unwrap_err();
        assert_eq!(err.param, "shape");
        let err = Holding::new(&HoldingSpec::Exponential { mean: -1.0 }).unwrap_err();
        assert!(err.to_string().contains("Exponential: `mean`"), "{err}");
    }
}
