//! The transcendental functions specprobe computes with, the same bits on every platform.
//!
//! `f64::ln`, `exp`, `powf` and the rest call the platform's C library, whose last bits differ
//! between glibc versions, musl and macOS: a run split across a mixed cluster, or a figure
//! re-run on a laptop, need not give the same bits. Every function here is the pure-Rust `libm`
//! crate's (a port of musl's, the same code on every target), so a scenario's numbers depend on
//! its seed alone. `cargo clippy` refuses the std methods everywhere else (`clippy.toml`'s
//! `disallowed-methods`).
//!
//! Square roots, `mul_add`, `floor`/`ceil`/`round`/`trunc` and `abs` stay std: IEEE 754
//! requires them correctly rounded (or exact), so every platform gives the same bits already.
//!
//! The cost, counted by callgrind (load-independent): `libm`'s `log` is 63 instructions a call
//! against glibc's 50, which is 13 of CC-UCB's ~920 a slot at K = 6 (one `ln t` a slot). Markov
//! paths no longer call it on their hot path (the occupancy model's certified gaps), and depend
//! only on ⌊ln u / ln(1 − r)⌋, which no gap of 1.34·10⁸ draws saw change between the two.

/// ln x.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// ln(1 + x), accurate for small x.
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    libm::log1p(x)
}

/// log₂ x.
#[inline]
pub fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// log₁₀ x.
#[inline]
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// eˣ.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// eˣ − 1, accurate for small x.
#[inline]
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// xʸ.
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// xⁿ by binary powering: the multiplications `f64::powi` makes through compiler-rt's
/// `__powidf2`, in the same order, so results are unchanged from it, but fixed in code rather
/// than left to the platform and the optimiser (which may expand a constant n differently).
#[inline]
pub fn powi(mut x: f64, n: i32) -> f64 {
    let negative = n < 0;
    let mut b = n.unsigned_abs();
    let mut r = 1.0;
    loop {
        if b & 1 == 1 {
            r *= x;
        }
        b >>= 1;
        if b == 0 {
            break;
        }
        x *= x;
    }
    if negative { 1.0 / r } else { r }
}

/// √(x² + y²) without overflow.
#[inline]
pub fn hypot(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

/// Γ(x).
#[inline]
pub fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

/// erfc x, the complementary error function.
#[inline]
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// φ(x), the standard normal density.
#[inline]
pub fn normal_pdf(x: f64) -> f64 {
    // 1/√(2π)
    const SCALE: f64 = 0.398_942_280_401_432_7;
    SCALE * exp(-0.5 * x * x)
}

/// Q(x) = P(Z > x) = 1 − Φ(x), Z standard normal: ½·erfc(x/√2), within an ulp of the exact
/// value (musl's erfc) and precise in the upper tail, where 1 − Φ would cancel.
#[inline]
pub fn normal_sf(x: f64) -> f64 {
    0.5 * erfc(x * std::f64::consts::FRAC_1_SQRT_2)
}

/// Φ(x) = P(Z ≤ x), precise in the lower tail.
#[inline]
pub fn normal_cdf(x: f64) -> f64 {
    normal_sf(-x)
}

/// Q⁻¹(p): the x with Q(x) = p, for p ∈ (0, 1) (±∞ at 0 and 1, NaN outside).
///
/// Acklam's rational approximation of Φ⁻¹ (relative error below 1.2·10⁻⁹, arithmetic, `ln`
/// and square roots only) as the start, then Newton steps on [`normal_sf`] (Q' = −φ) until they
/// stop moving x, so that Q(Q⁻¹(p)) is p to a few ulps. Written here rather than taken from
/// `statrs`, whose inverse computes with the platform's `exp` and `ln`: every step of this one
/// is the same on every platform.
pub fn normal_sf_inv(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::INFINITY;
    }
    if p == 1.0 {
        return f64::NEG_INFINITY;
    }
    let mut x = -acklam(p);
    for _ in 0..4 {
        let density = normal_pdf(x);
        if density.is_nan() || density <= 0.0 {
            break;
        }
        let step = (normal_sf(x) - p) / density;
        if !step.is_finite() || step.abs() <= f64::EPSILON * x.abs() {
            break;
        }
        x += step;
    }
    x
}

/// Φ⁻¹(p) for p ∈ (0, 1), to a relative 1.2·10⁻⁹ (P. J. Acklam, "An algorithm for computing
/// the inverse normal cumulative distribution function", 2003; public-domain coefficients).
fn acklam(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.02425;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < LOW {
        tail((-2.0 * ln(p)).sqrt())
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * ln(1.0 - p)).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powi_is_binary_powering() {
        // `f64::powi` is what `powi` replaces: same bits on this platform's compiler-rt.
        #[allow(clippy::disallowed_methods)]
        for x in [0.3f64, 1.7, -2.5, 1e-3, 0.9999999] {
            for n in [-7, -2, -1, 0, 1, 2, 3, 5, 8, 17, 64] {
                assert_eq!(powi(x, n).to_bits(), x.powi(n).to_bits(), "{x}^{n}");
            }
        }
    }

    #[test]
    fn values() {
        assert_eq!(ln(1.0), 0.0);
        assert!((ln(std::f64::consts::E) - 1.0).abs() < 1e-15);
        assert_eq!(exp(0.0), 1.0);
        assert!((powf(2.0, 0.5) - std::f64::consts::SQRT_2).abs() < 1e-15);
        assert!((gamma(5.0) - 24.0).abs() < 1e-12);
        assert_eq!(log2(8.0), 3.0);
        assert_eq!(log10(1000.0), 3.0);
        assert_eq!(hypot(3.0, 4.0), 5.0);
    }

    #[test]
    fn normal_quantiles_invert_the_tail() {
        assert_eq!(normal_sf_inv(0.5), 0.0);
        assert!((normal_sf_inv(0.025) - 1.959_963_984_540_054).abs() < 1e-15);
        assert!((normal_sf_inv(0.975) + 1.959_963_984_540_054).abs() < 1e-15);
        for p in [
            1e-250,
            1e-100,
            1e-12,
            1e-3,
            0.02,
            0.0243,
            0.1,
            0.4,
            0.7,
            0.9,
            0.99,
            1.0 - 1e-9,
        ] {
            let x = normal_sf_inv(p);
            let back = normal_sf(x);
            assert!(
                (back - p).abs() <= 8.0 * f64::EPSILON * p * (1.0 + x * x),
                "{p}: {x} -> {back}"
            );
            assert_eq!(normal_cdf(-x), back);
        }
        assert_eq!(normal_sf_inv(0.0), f64::INFINITY);
        assert_eq!(normal_sf_inv(1.0), f64::NEG_INFINITY);
        assert!(normal_sf_inv(1.5).is_nan() && normal_sf_inv(f64::NAN).is_nan());
        assert!((normal_pdf(0.0) - 1.0 / (2.0 * std::f64::consts::PI).sqrt()).abs() < 1e-17);
    }

    /// Q and its inverse agree to a few ulps of what x itself can hold (one ulp of x moves
    /// Q by about x² ulps in the far tail), from 10⁻³⁰⁰ to 1 − 10⁻⁹: statrs' was 5·10⁻¹¹
    /// relative (issue 50).
    #[test]
    fn the_inverse_meets_its_target_to_a_few_ulps() {
        let mut p = 1e-300f64;
        while p < 1.0 - 1e-9 {
            let x = normal_sf_inv(p);
            let back = normal_sf(x);
            let err = (back - p).abs() / p;
            let bound = 4.0 * f64::EPSILON * (1.0 + x * x);
            assert!(
                err <= bound,
                "p = {p:e}: Q(Q⁻¹(p)) = {back:e} ({err:e} > {bound:e})"
            );
            p = if p < 0.5 {
                p * 3.7
            } else {
                1.0 - (1.0 - p) / 3.7
            };
        }
        // Published values: Q⁻¹(0.1) = Φ⁻¹(0.9) = 1.2815515655446004, Q(1) = 0.15865525393145705.
        assert!((normal_sf_inv(0.1) - 1.2815515655446004).abs() <= 2.0 * f64::EPSILON);
        assert!((normal_sf(1.0) / 0.158_655_253_931_457_05 - 1.0).abs() <= 2.0 * f64::EPSILON);
        assert_eq!(normal_sf(0.0), 0.5);
    }
}
