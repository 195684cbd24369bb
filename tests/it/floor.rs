//! The benchmark's hand-written floor computes exactly what the engine computes, so the speed
//! comparison in `benches/slot_loop.rs` compares like with like.

#[path = "../../benches/handwritten.rs"]
mod handwritten;

#[path = "../../benches/support.rs"]
mod support;

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
        let results = specprobe::Simulation::new(scenario)
            .threads(1)
            .run()
            .unwrap();
        let r = results.regret().unwrap();
        let last = r
            .curves()
            .into_iter()
            .find(|c| c.policy == "cc-ucb" && c.t == horizon)
            .unwrap();
        let floor = handwritten::cc_ucb(&theta, &cost, 1.5, 1e-5, horizon, 3);
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
}
