//! Confidence radii of the identification algorithms, and the faithful parameter choices, in one
//! place.
//!
//! The LIL radius (Jiang, Li, Qiao 2017, Lemma 2.1, with the modification of their Experiments
//! section that keeps the inner logarithm positive):
//! `U(t, ω) = (1 + √ε) · sqrt( 2σ²(1 + ε)/t · ln( ln((1 + ε)t + 2) / ω ) )`,
//! valid with probability at least `1 − c_ε ω^{1+ε}` for all `t` at once, where
//! `c_ε = (2 + ε)/ε · (1/ln(1 + ε))^{1+ε}`.
//!
//! LUCB1's radius (Kalyanakrishnan, Tewari, Auer, Stone 2012) depends on the round `t` too:
//! `β(u, t) = sqrt( ln(k₁ N t⁴ / δ) / (2u) )` with `k₁ = 5/4`, for rewards in [0, 1]; for a
//! σ-sub-Gaussian reward it is scaled to `sqrt(2σ² ln(k₁ N t⁴/δ) / u)` (the two agree at σ = 1/2,
//! which covers both Bernoulli rewards and the paper's Gaussians of variance 1/4).

use crate::util::math;
use serde::{Deserialize, Serialize};

/// The LIL confidence radius for a given ε and sub-Gaussian parameter σ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lil {
    /// ε ∈ [0, 1): 0 in the heuristic setting.
    pub epsilon: f64,
    /// Sub-Gaussian parameter σ of the rewards.
    pub sigma: f64,
}

impl Lil {
    /// `U(t, ω)` (the modified form with `+2` inside the inner logarithm).
    #[cfg(test)]
    pub(crate) fn radius(&self, t: u64, omega: f64) -> f64 {
        self.radius_of(t, self.iterated_log(t, omega))
    }

    /// `ln((1 + ε)t + 2)`.
    #[inline]
    fn log_term(&self, t: u64) -> f64 {
        math::ln((1.0 + self.epsilon) * t as f64 + 2.0)
    }

    /// `ln(ln((1 + ε)t + 2) / ω)`, the part of `U(t, ω)` that grows (slowly) with `t`; with
    /// [`Lil::radius_of`] the same operations as [`Lil::radius`], so the same bits.
    #[inline]
    pub(crate) fn iterated_log(&self, t: u64, omega: f64) -> f64 {
        math::ln(self.log_term(t) / omega)
    }

    /// `U(t, ω)` from its [`Lil::iterated_log`] `g`. Every operation after `g` is monotone in
    /// `g`, so a `g` taken at an earlier count gives the radius at `t` up to the few ulps by
    /// which the logarithms may fail to be monotone (see [`Lil::radius_below`]).
    #[inline]
    pub(crate) fn radius_of(&self, t: u64, g: f64) -> f64 {
        let e = self.epsilon;
        (1.0 + e.sqrt()) * (2.0 * self.sigma * self.sigma * (1.0 + e) * g / t as f64).sqrt()
    }

    /// A lower bound of `U(t, ω)` at any `t` at or after the count where `g_then` was the
    /// [`Lil::iterated_log`], with no logarithm; `None` where `g_then` is too small for that.
    ///
    /// Why it holds: `ln(ln((1 + ε)t + 2)/ω)` is increasing in `t`, and each computed
    /// logarithm is within an ulp of the true one, so the computed `g` at `t` is at least
    /// `g_then` less a few ulps of the logarithms' arguments. While `g_then ≥ 1/64` those ulps
    /// are below 10⁻¹³ of `g`, hence 10⁻¹³ of the radius: the margin of 10⁻¹² covers them.
    #[inline]
    pub(crate) fn radius_below(&self, t: u64, g_then: f64) -> Option<f64> {
        (g_then >= 1.0 / 64.0).then(|| self.radius_of(t, g_then) * (1.0 - 1e-12))
    }
}

/// `c_ε = (2 + ε)/ε · (1/ln(1 + ε))^{1+ε}` (Lemma 2.1); infinite at ε = 0.
pub(crate) fn c_epsilon(epsilon: f64) -> f64 {
    (2.0 + epsilon) / epsilon * math::powf(1.0 / math::ln(1.0 + epsilon), 1.0 + epsilon)
}

/// LUCB1's radius `sqrt(2σ² ln(k₁ N t⁴ / δ) / u)`, `k₁ = 5/4`, at round `t` after `u` samples.
#[cfg(test)]
pub(crate) fn lucb1_radius(u: u64, t: u64, n: usize, delta: f64, sigma: f64) -> f64 {
    lucb1_log_term(t, n, delta).sqrt() * lucb1_arm_factor(u, sigma)
}

/// `ln(k₁ N t⁴ / δ)`, common to every arm in a round (computed in logs: `t⁴` overflows nothing).
pub(crate) fn lucb1_log_term(t: u64, n: usize, delta: f64) -> f64 {
    math::ln(1.25 * n as f64 / delta) + 4.0 * math::ln(t as f64)
}

/// `sqrt(2σ² / u)`, the per-arm factor of LUCB1's radius.
pub(crate) fn lucb1_arm_factor(u: u64, sigma: f64) -> f64 {
    (2.0 * sigma * sigma / u as f64).sqrt()
}

/// The two parameter settings of the paper's Experiments section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Setting {
    /// ε and δ chosen so that the guaranteed error probability is at most ν.
    Faithful,
    /// ε = 0, δ = ν (Jamieson et al.'s practice): no guarantee, fewer samples.
    Heuristic,
}

impl Setting {
    /// Name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Faithful => "faithful",
            Setting::Heuristic => "heuristic",
        }
    }
}

/// How an algorithm's guarantee depends on δ, which fixes δ in the faithful setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Guarantee {
    /// Error probability at most `c_ε δ` (lil'RandLUCB, Theorem 3.1; LUCB++ and lil'LUCB, whose
    /// radii are at least as wide under the same union bound).
    CEpsDelta,
    /// At most `c_ε δ^{1+ε} / N^ε` (lil'CLUCB, Theorem 4.1).
    CEpsDeltaPowOverN,
    /// At most `4√(c_ε δ) + 4 c_ε δ` (lil'UCB, Jamieson et al. 2014, Theorem 2).
    LilUcb,
    /// At most δ (LUCB1 is δ-PAC by construction).
    Delta,
}

impl Guarantee {
    /// The largest δ whose guaranteed error probability is at most `nu`.
    pub(crate) fn delta_for(self, nu: f64, epsilon: f64, n: usize) -> f64 {
        let c = c_epsilon(epsilon);
        match self {
            Guarantee::CEpsDelta => nu / c,
            Guarantee::CEpsDeltaPowOverN => math::powf(
                nu * math::powf(n as f64, epsilon) / c,
                1.0 / (1.0 + epsilon),
            ),
            Guarantee::LilUcb => {
                let root = ((1.0 + nu).sqrt() - 1.0) / 2.0;
                root * root / c
            }
            Guarantee::Delta => nu,
        }
    }

    /// The guaranteed error probability for a given δ (the inverse of `delta_for`; checked
    /// against it by the tests).
    #[cfg(test)]
    pub(crate) fn error_bound(self, delta: f64, epsilon: f64, n: usize) -> f64 {
        let c = c_epsilon(epsilon);
        match self {
            Guarantee::CEpsDelta => c * delta,
            Guarantee::CEpsDeltaPowOverN => {
                c * math::powf(delta, 1.0 + epsilon) / math::powf(n as f64, epsilon)
            }
            Guarantee::LilUcb => 4.0 * (c * delta).sqrt() + 4.0 * c * delta,
            Guarantee::Delta => delta,
        }
    }
}

/// ε and δ of one run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// ε of the LIL radius (0 when heuristic).
    pub epsilon: f64,
    /// δ.
    pub delta: f64,
}

impl Params {
    /// The parameters of an algorithm with guarantee `g` in `setting`, for confidence `nu`,
    /// `n` arms and the faithful setting's ε.
    pub(crate) fn choose(
        g: Guarantee,
        setting: Setting,
        nu: f64,
        n: usize,
        faithful_epsilon: f64,
    ) -> Params {
        match (setting, g) {
            (_, Guarantee::Delta) => Params {
                epsilon: 0.0,
                delta: nu,
            },
            (Setting::Heuristic, _) => Params {
                epsilon: 0.0,
                delta: nu,
            },
            (Setting::Faithful, g) => Params {
                epsilon: faithful_epsilon,
                delta: g.delta_for(nu, faithful_epsilon, n),
            },
        }
    }
}

/// Lemma 2.1 needs `δ < ln(1 + ε)/e`.
pub(crate) fn lemma_delta_limit(epsilon: f64) -> f64 {
    math::ln(1.0 + epsilon) / std::f64::consts::E
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed values of the modified radius.
    #[test]
    fn radius_matches_hand_computation() {
        // ε = 0.01, σ = 0.5, t = 10, ω = 1e-3:
        // (1 + 0.1) · sqrt(2 · 0.25 · 1.01 / 10 · ln(ln(1.01·10 + 2) / 1e-3))
        // ln(12.1) = 2.493205; / 1e-3 = 2493.205; ln = 7.821324;
        // 0.0505 · 7.821324 = 0.394977; sqrt = 0.628472; × 1.1 = 0.691319.
        let u = Lil {
            epsilon: 0.01,
            sigma: 0.5,
        }
        .radius(10, 1e-3);
        assert!((u - 0.691_319).abs() < 1e-5, "{u}");
        // ε = 0, σ = 1, t = 100, ω = 0.01: sqrt(2 · ln(ln(102)/0.01)/100)
        // ln(102) = 4.624973; /0.01 = 462.4973; ln = 6.136642; ×2/100 = 0.122733; sqrt = 0.350333.
        let u = Lil {
            epsilon: 0.0,
            sigma: 1.0,
        }
        .radius(100, 0.01);
        assert!((u - 0.350_333).abs() < 1e-5, "{u}");
        // Shrinks with t.
        let lil = Lil {
            epsilon: 0.01,
            sigma: 0.5,
        };
        assert!(lil.radius(1000, 1e-3) < lil.radius(100, 1e-3));
    }

    #[test]
    fn c_epsilon_at_one_percent() {
        // (2.01/0.01) · (1/ln 1.01)^1.01 = 201 · 100.4992^1.01 = 201 · 105.2409 ≈ 21 153.
        let c = c_epsilon(0.01);
        assert!((c / 21_153.4 - 1.0).abs() < 1e-4, "{c}");
    }

    /// Faithful parameters give the stated error bound: δ chosen for ν makes the algorithm's
    /// bound exactly ν, and within the range Lemma 2.1 allows.
    #[test]
    fn faithful_parameters_meet_the_confidence_level() {
        for g in [
            Guarantee::CEpsDelta,
            Guarantee::CEpsDeltaPowOverN,
            Guarantee::LilUcb,
            Guarantee::Delta,
        ] {
            for n in [2, 10, 1000] {
                let p = Params::choose(g, Setting::Faithful, 0.01, n, 0.01);
                let bound = g.error_bound(p.delta, p.epsilon.max(0.01), n);
                assert!((bound - 0.01).abs() < 1e-12, "{g:?} n={n}: {bound}");
                if g != Guarantee::Delta {
                    assert!(
                        p.delta < lemma_delta_limit(p.epsilon),
                        "{g:?}: δ = {}",
                        p.delta
                    );
                }
            }
        }
        let h = Params::choose(Guarantee::CEpsDelta, Setting::Heuristic, 0.01, 10, 0.01);
        assert_eq!((h.epsilon, h.delta), (0.0, 0.01));
    }

    #[test]
    fn lucb1_radius_is_hoeffding_at_sigma_half() {
        // sqrt(ln(1.25 · 10 · 3⁴ / 0.1) / (2 · 4))
        let want = (math::ln(1.25f64 * 10.0 * 81.0 / 0.1) / 8.0).sqrt();
        assert!((lucb1_radius(4, 3, 10, 0.1, 0.5) - want).abs() < 1e-12);
    }

    #[test]
    fn lil_radius_at_one_sample() {
        let u = Lil {
            epsilon: 0.0,
            sigma: 0.5,
        }
        .radius(1, 0.01);
        // sqrt(2 · 0.25 · ln(ln(3) / 0.01) / 1)
        assert!((u - (0.5 * math::ln(math::ln(3f64) / 0.01)).sqrt()).abs() < 1e-12);
    }
}
