//! The benchmark's hand-written floor computes exactly what the engine computes, so the speed
//! comparison in `benches/slot_loop.rs` compares like with like.

#[path = "../../benches/handwritten.rs"]
mod handwritten;

#[path = "../../benches/support.rs"]
mod support;

/// The engine's values at the horizon of a one-run simulation equal the floor's, exactly.
fn assert_equals_floor(scenario: specprobe::Scenario, horizon: u64, floor: handwritten::Outcome) {
    let results = specprobe::Simulation::new(scenario)
        .threads(1)
        .run()
        .unwrap();
    let r = results.regret().unwrap();
    let last = r.curves().into_iter().find(|c| c.t == horizon).unwrap();
    // One run: the means are that run's values, exactly.
    assert_eq!(
        last.metric("pseudo_regret").unwrap().mean,
        floor.pseudo_regret
    );
    assert_eq!(last.metric("reward").unwrap().mean, floor.reward);
    assert_eq!(
        last.metric("realized_regret").unwrap().mean,
        floor.realized_regret
    );
}

#[test]
fn floor_matches_engine() {
    for k in [6, 40] {
        let (theta, cost) = support::instance(k);
        let horizon = 20_000;
        let scenario = support::scenario(
            &theta,
            &cost,
            &[("cc-ucb", "CcUcb(alpha: 1.5, epsilon: 1e-5)")],
            horizon,
            3,
        );
        let floor = handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 3);
        assert_equals_floor(scenario, horizon, floor);
    }
}

/// The same for classic UCB1 (constant costs, the UCR-T1 list one channel long).
#[test]
fn ucb1_floor_matches_engine() {
    let theta = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    let horizon = 20_000;
    let floor = handwritten::ucb1(&theta, 0.75, horizon, 2002, 0);
    assert_equals_floor(support::ucb1_scenario(&theta, horizon, 1), horizon, floor);
}
