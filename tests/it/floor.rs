//! The benchmark's hand-written floor computes exactly what the engine computes, so the speed
//! comparison in `benches/slot_loop.rs` compares like with like.

#[path = "../../benches/handwritten.rs"]
mod handwritten;

use specprobe::channel::{Channel, Environment};
use specprobe::cost::CostModel;
use specprobe::law::{Law, LawSpec};
use specprobe::policy::CcUcb;
use specprobe::recorder::{Metric, RunRecord};

#[test]
fn floor_matches_engine() {
    for (theta, cost) in [
        (vec![0.8, 0.7, 0.6, 0.5, 0.4, 0.3], vec![0.55; 6]),
        (
            (0..40).map(|i| 0.1 + 0.02 * i as f64).collect(),
            vec![0.4; 40],
        ),
    ] {
        let env = Environment::new(
            theta
                .iter()
                .zip(&cost)
                .map(|(&t, &c)| {
                    Channel::new(
                        t,
                        CostModel::Plain(Law::new(&LawSpec::Bernoulli(c)).unwrap()),
                    )
                })
                .collect(),
        );
        let horizon = 20_000;
        let mut record = RunRecord::new(env.len(), 1);
        let mut rng = specprobe::rng::stream(3, 0, 0);
        specprobe::sim::episode(
            &env,
            &mut CcUcb::unknown_cost(env.len(), 1.5, 1e-5),
            horizon,
            &[horizon],
            &mut rng,
            &mut specprobe::channel::Paths::new(&env, specprobe::crn::RunKey::new(3, 0, 0)),
            &mut record,
            &mut Vec::new(),
            &specprobe::Cancel::new(),
        );
        let (regret, reward) = handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 3);
        assert_eq!(record.rows[0][Metric::PseudoRegret as usize], regret);
        assert_eq!(record.rows[0][Metric::Reward as usize], reward);
    }
}
