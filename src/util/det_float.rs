//! [`Det`]: an `f64` whose transcendental functions are [`crate::util::math`]'s, so that
//! `rand_distr`'s generic samplers (`Beta<Det>`, `Gamma<Det>`, `Weibull<Det>`, ...) draw the
//! same bits on every platform.
//!
//! `rand_distr` computes through `num_traits::Float`, whose `ln`, `exp` and `powf` call the
//! platform's C library once any crate in the build turns on num-traits' `std` feature (one
//! does). A sampler instantiated at `Det` runs the same algorithm, draw for draw, with the
//! `libm` crate's functions. The uniform draws it takes (`Open01`, `OpenClosed01`,
//! `StandardUniform`) are `f64`'s, which are arithmetic. The standard normal and exponential
//! draws (`StandardNormal`, `Exp1`) are `f64`'s ziggurats too: exact arithmetic but for their
//! rare tail and wedge tests, which keep the platform's `exp` and `ln` (guide, many-machines.md, "The same bits
//! on every platform").

use crate::util::math;
use num_traits::{Float, Num, NumCast, One, ToPrimitive, Zero};
use rand::Rng;
use rand::distr::{Distribution, Open01, OpenClosed01, StandardUniform};
use rand_distr::{Exp1, StandardNormal};
use std::num::FpCategory;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// An `f64` computed with [`crate::util::math`] (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub(crate) struct Det(pub f64);

macro_rules! binary {
    ($($trait:ident $method:ident),*) => {$(
        impl $trait for Det {
            type Output = Det;
            #[inline]
            fn $method(self, other: Det) -> Det {
                Det(self.0.$method(other.0))
            }
        }
    )*};
}
binary!(Add add, Sub sub, Mul mul, Div div, Rem rem);

impl Neg for Det {
    type Output = Det;
    #[inline]
    fn neg(self) -> Det {
        Det(-self.0)
    }
}

impl Zero for Det {
    fn zero() -> Det {
        Det(0.0)
    }
    fn is_zero(&self) -> bool {
        self.0 == 0.0
    }
}

impl One for Det {
    fn one() -> Det {
        Det(1.0)
    }
}

impl Num for Det {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Det, Self::FromStrRadixErr> {
        f64::from_str_radix(s, radix).map(Det)
    }
}

impl ToPrimitive for Det {
    fn to_i64(&self) -> Option<i64> {
        self.0.to_i64()
    }
    fn to_u64(&self) -> Option<u64> {
        self.0.to_u64()
    }
    fn to_f64(&self) -> Option<f64> {
        Some(self.0)
    }
}

impl NumCast for Det {
    fn from<T: ToPrimitive>(n: T) -> Option<Det> {
        n.to_f64().map(Det)
    }
}

/// Methods that are exact (or correctly rounded by IEEE 754) on every platform: `f64`'s own.
macro_rules! exact {
    ($($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Det {
            Det(self.0.$name())
        }
    )*};
}

/// Transcendental methods: [`crate::util::math`]'s, or the `libm` crate's.
macro_rules! det {
    ($($name:ident => $f:path),*) => {$(
        #[inline]
        fn $name(self) -> Det {
            Det($f(self.0))
        }
    )*};
}

impl Float for Det {
    fn nan() -> Det {
        Det(f64::NAN)
    }
    fn infinity() -> Det {
        Det(f64::INFINITY)
    }
    fn neg_infinity() -> Det {
        Det(f64::NEG_INFINITY)
    }
    fn neg_zero() -> Det {
        Det(-0.0)
    }
    fn min_value() -> Det {
        Det(f64::MIN)
    }
    fn min_positive_value() -> Det {
        Det(f64::MIN_POSITIVE)
    }
    fn max_value() -> Det {
        Det(f64::MAX)
    }
    fn epsilon() -> Det {
        Det(f64::EPSILON)
    }
    fn is_nan(self) -> bool {
        self.0.is_nan()
    }
    fn is_infinite(self) -> bool {
        self.0.is_infinite()
    }
    fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    fn is_normal(self) -> bool {
        self.0.is_normal()
    }
    fn classify(self) -> FpCategory {
        self.0.classify()
    }
    exact!(floor, ceil, round, trunc, fract, abs, signum, sqrt, recip);
    fn is_sign_positive(self) -> bool {
        self.0.is_sign_positive()
    }
    fn is_sign_negative(self) -> bool {
        self.0.is_sign_negative()
    }
    fn mul_add(self, a: Det, b: Det) -> Det {
        Det(self.0.mul_add(a.0, b.0))
    }
    fn powi(self, n: i32) -> Det {
        Det(math::powi(self.0, n))
    }
    fn powf(self, n: Det) -> Det {
        Det(math::powf(self.0, n.0))
    }
    det!(exp => math::exp, exp2 => libm::exp2, ln => math::ln, log2 => math::log2,
        log10 => math::log10, cbrt => libm::cbrt, sin => libm::sin, cos => libm::cos,
        tan => libm::tan, asin => libm::asin, acos => libm::acos, atan => libm::atan,
        exp_m1 => math::exp_m1, ln_1p => math::ln_1p, sinh => libm::sinh, cosh => libm::cosh,
        tanh => libm::tanh, asinh => libm::asinh, acosh => libm::acosh, atanh => libm::atanh);
    fn log(self, base: Det) -> Det {
        Det(math::ln(self.0) / math::ln(base.0))
    }
    fn max(self, other: Det) -> Det {
        Det(self.0.max(other.0))
    }
    fn min(self, other: Det) -> Det {
        Det(self.0.min(other.0))
    }
    fn abs_sub(self, other: Det) -> Det {
        Det((self.0 - other.0).max(0.0))
    }
    fn hypot(self, other: Det) -> Det {
        Det(math::hypot(self.0, other.0))
    }
    fn atan2(self, other: Det) -> Det {
        Det(libm::atan2(self.0, other.0))
    }
    fn sin_cos(self) -> (Det, Det) {
        let (s, c) = libm::sincos(self.0);
        (Det(s), Det(c))
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        Float::integer_decode(self.0)
    }
}

/// `rand_distr`'s samplers draw their uniforms and standard variates at `Det` as `f64`'s.
macro_rules! draws_as_f64 {
    ($($d:ty),*) => {$(
        impl Distribution<Det> for $d {
            #[inline]
            fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Det {
                Det(Distribution::<f64>::sample(self, rng))
            }
        }
    )*};
}
draws_as_f64!(Open01, OpenClosed01, StandardUniform, StandardNormal, Exp1);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;
    use rand_distr::{Beta, Gamma, Weibull};

    /// At `Det` a sampler is the same algorithm with the deterministic functions: its draws
    /// agree with `f64`'s to the last bits those functions differ in, draw for draw.
    #[test]
    fn samplers_at_det_are_the_f64_samplers_up_to_the_last_bits() {
        let mut a = stream(1, 2, 3);
        let mut b = a.clone();
        let (beta, beta_f) = (
            Beta::new(Det(2.5), Det(0.7)).unwrap(),
            Beta::new(2.5, 0.7).unwrap(),
        );
        let (gamma, gamma_f) = (
            Gamma::new(Det(0.6), Det(2.0)).unwrap(),
            Gamma::new(0.6, 2.0).unwrap(),
        );
        let (weib, weib_f) = (
            Weibull::new(Det(3.0), Det(0.8)).unwrap(),
            Weibull::new(3.0, 0.8).unwrap(),
        );
        for _ in 0..10_000 {
            for (x, y) in [
                (beta.sample(&mut a).0, beta_f.sample(&mut b)),
                (gamma.sample(&mut a).0, gamma_f.sample(&mut b)),
                (weib.sample(&mut a).0, weib_f.sample(&mut b)),
            ] {
                assert!((x - y).abs() <= 1e-12 * y.abs().max(1e-300), "{x} {y}");
            }
        }
    }
}
