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

/// The same for classic UCB1 (constant costs, the UCR-T1 list one channel long).
#[test]
fn ucb1_floor_matches_engine() {
    let theta = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    let horizon = 20_000;
    let channels: Vec<String> = theta
        .iter()
        .map(|t| format!("(theta: {t:?}, cost: Constant(0.75))"))
        .collect();
    let text = format!(
        "Regret(name: \"ucb1\", seed: 2002, horizon: {horizon}, runs: 1, channels: [{}], policies: [(policy: Ucb1(reward: Idle))])",
        channels.join(", ")
    );
    let scenario = specprobe::parse(&text, std::path::Path::new("ucb1.ron")).unwrap();
    let results = specprobe::Simulation::new(scenario)
        .threads(1)
        .run()
        .unwrap();
    let r = results.regret().unwrap();
    let last = r.curves().into_iter().find(|c| c.t == horizon).unwrap();
    let floor = handwritten::ucb1(&theta, 0.75, horizon, 2002, 0);
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
