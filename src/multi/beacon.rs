//! BEACON, Batched Exploration with Adaptive COmmunicatioN (Shi, Xiong, Shen & Yang,
//! "Heterogeneous Multi-player Multi-armed Bandits: Closing the Gap and Generalization",
//! NeurIPS 2021), as the authors' code (`ShenGroup/MPMAB_BEACON`, `strategy_BEACON.py` and
//! `strategy_banditsBEACON.py`; MIT, © 2021 Cong Shen Research Group) runs it. Users who see
//! the channels differently; one leader learns the matching.
//!
//! 1. *Orthogonalisation* (the reference's variant of DPE's, for M ≤ K): a user without an
//!    identifier picks a uniform channel, and keeps it after a slot without collision; then K
//!    slots in which users without one sweep every channel: a collision anywhere sends
//!    everyone back. *Rank assignment*, 2K slots: the user of identifier j sits on j for 2j
//!    slots, then sweeps; the collisions before it leaves give its position (the leader's is 1)
//!    and all of them M.
//! 2. *Initial exploration*: `initial_pulls` rounds of K slots in which the users rotate over
//!    every channel (position p on channel `(p + r) mod K`).
//! 3. *Communication*, charged slot by slot. (i) Except the first time, the leader collides
//!    once with each follower on its channel (M − 1 slots): exploration stops. (ii)
//!    Statistics: the first time, each follower in turn sends its K sample means truncated to
//!    `⌊log₂ initial_pulls⌋` bits, a 1 by colliding on the leader's channel; later, *adaptive
//!    differential communication*: only a follower whose counter `⌊log₂ N⌋` of its explored
//!    channel grew sends, after the leader's signal (one slot), the difference between its new
//!    and last truncated means in `lp` bits (the last of them its sign). (iii) The leader's UCB
//!    of user u on channel k is its received mean plus `sqrt(3 ln t / 2^(p_uk + 1))` (`p`: the
//!    counter), its own empirical means for itself; the oracle's matching on the UCBs is the
//!    next phase's assignment, sent to each follower in `⌈log₂ K⌉` bits.
//! 4. *Batched exploration*: each user on its assigned channel for `2^(min p)` slots over the
//!    matched pairs, then communication again.
//!
//! The communication's content is passed as the truncated values it carries, and its slots
//! are played as the protocol plays them, as in the authors' code (collisions on a channel
//! always carry a bit with the collision indicator): the slots, their collisions and their
//! rewards are the world's. It needs the collision indicator in every slot (`feedback:
//! SensingAndCollision` or `CollisionOnly`) and at most as many users as channels.
//!
//! `convention: Reference` follows four places where that code does something else than the
//! protocol it describes: the leader's oracle is the linear assignment whatever the system
//! reward (the paper's is the system reward's own); in the assignment's broadcast the leader
//! plays channels 0 and 1 for the bits (its action string holds the bits as channel numbers;
//! the protocol collides with the follower for a 1); every follower sending a difference sends
//! it in the first window (its window counter is reset per follower; the protocol gives each
//! its own); and the leader takes the difference of every follower, sending or not (the
//! protocol, only those it hears from).

use crate::util::math;
use super::{CodeConvention, Seen, Team, TeamBuiltin};
use crate::model::channel::Environment;
use crate::model::system_reward::SystemReward;
use crate::util::rng::SimRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// `Beacon(initial_pulls: 300, lp: 7, convention: …)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct BeaconSpec {
    /// Rounds of the initial exploration (every user every channel once a round).
    pub initial_pulls: u64,
    /// Bits of an adaptive differential message (the sign included).
    pub lp: u32,
    /// The paper's protocol (default) or the reference code's (see the module docs).
    #[serde(skip_serializing_if = "CodeConvention::is_default")]
    pub convention: CodeConvention,
}

impl Default for BeaconSpec {
    fn default() -> Self {
        BeaconSpec {
            initial_pulls: 300,
            lp: 7,
            convention: CodeConvention::Paper,
        }
    }
}

impl TeamBuiltin for BeaconSpec {
    const SUMMARY: &'static str = "BEACON: a leader matches users who see channels differently; batched exploration, differential communication";
    type Team = Beacon;

    fn example() -> Self {
        BeaconSpec::default()
    }
    fn label(&self) -> String {
        format!("beacon{}", self.convention.suffix())
    }
    fn is_classic(&self) -> bool {
        true
    }
    fn allows_user_means(&self) -> bool {
        true
    }
    fn needs_collision_indicator(&self) -> bool {
        true
    }
    fn check(&self, k: usize, users: usize, _horizon: u64) -> Vec<(String, String)> {
        let mut rules = Vec::new();
        if users > k {
            rules.push((
                "users".into(),
                format!("BEACON assigns every user a channel of its own: at most K users (got {users} users on {k} channels)"),
            ));
        }
        if !(2..=1 << 20).contains(&self.initial_pulls) {
            rules.push((
                "initial_pulls".into(),
                format!(
                    "must lie in 2..=1048576 (its log₂ is the first means' bits; got {})",
                    self.initial_pulls
                ),
            ));
        }
        if !(2..=30).contains(&self.lp) {
            rules.push((
                "lp".into(),
                format!("must lie in 2..=30 bits (got {})", self.lp),
            ));
        }
        rules
    }
    fn ns_per_user_slot(&self, _k: u64, _users: u64) -> f64 {
        super::USER_SLOT_NS
    }
    fn build(&self, env: &Environment, users: usize, h: u64, r: &mut [SimRng]) -> Beacon {
        self.build_for(env, users, h, SystemReward::Linear, r)
    }
    fn build_for(
        &self,
        env: &Environment,
        users: usize,
        _h: u64,
        system: SystemReward,
        _r: &mut [SimRng],
    ) -> Beacon {
        Beacon::new(env.len(), users, self, system)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Sample,
    Verify,
    Rank,
    Initial,
    Explore,
}

/// One BEACON user (the reference's `BEACON` player).
#[derive(Clone, Debug)]
struct User {
    phase: Phase,
    /// Identifier: 1..K while orthogonalising (0: none), then 0..K−1.
    id: usize,
    round: u64,
    collisions: u64,
    users: usize,
    /// Position 1..M (1: the leader).
    position: usize,
    last: usize,
    /// Σ of rewards without collision, pulls, and the means (updated at even pulls).
    sums: Vec<f64>,
    pulls: Vec<u64>,
    means: Vec<f64>,
    counters: Vec<u32>,
    old_counters: Vec<u32>,
    last_means: Vec<f64>,
    explore: usize,
    comm: usize,
}

/// What the leader keeps of every position (row `i`: position `i + 1`).
#[derive(Clone, Debug, Default)]
struct Lead {
    stat: Vec<Vec<f64>>,
    last_stat: Vec<Vec<f64>>,
    pulls: Vec<Vec<u64>>,
    counters: Vec<Vec<u32>>,
    matching: Vec<usize>,
    explore_length: u64,
    comm: Vec<usize>,
    need: Vec<usize>,
    first: bool,
}

/// M BEACON users.
#[derive(Clone, Debug)]
pub(crate) struct Beacon {
    users: Vec<User>,
    lead: Lead,
    spec: BeaconSpec,
    system: SystemReward,
    k: usize,
    /// Slots so far (the `t` of the leader's `ln t`).
    t: u64,
    /// A communication is due before the next slot.
    pending: bool,
    /// The communication's slots still to play (channel per user), in reverse order.
    schedule: Vec<Vec<usize>>,
    /// The slot being played is a communication slot (users learn nothing from it).
    talking: bool,
    /// User index of each position.
    by_position: Vec<usize>,
    reference: bool,
}

/// `x ∈ [0, 1]` to `q` bits (the reference's `d2b`), as the integer they spell, most
/// significant first.
fn bits(x: f64, q: u32) -> u64 {
    if x >= 1.0 {
        return (1u64 << q) - 1;
    }
    let (mut x, mut out) = (x.max(0.0), 0u64);
    for _ in 0..q {
        let doubled = x * 2.0;
        let bit = doubled as u64;
        x = doubled - bit as f64;
        out = (out << 1) | bit.min(1);
    }
    out
}

/// `x` truncated to `q` bits (the reference's `truncate`).
fn truncate(x: f64, q: u32) -> f64 {
    bits(x, q) as f64 / math::powi(2f64, q as i32)
}

/// `⌊log₂ n⌋` (0 for n = 0, as no pulls give no counter).
fn counter(n: u64) -> u32 {
    if n == 0 { 0 } else { 63 - n.leading_zeros() }
}

impl Beacon {
    /// `k` channels, `users ≤ k` users.
    pub(crate) fn new(k: usize, users: usize, spec: &BeaconSpec, system: SystemReward) -> Beacon {
        let user = User {
            phase: Phase::Sample,
            id: 0,
            round: 1,
            collisions: 0,
            users: 1,
            position: 0,
            last: 0,
            sums: vec![0.0; k],
            pulls: vec![0; k],
            means: vec![0.0; k],
            counters: vec![0; k],
            old_counters: vec![0; k],
            last_means: vec![0.0; k],
            explore: 0,
            comm: 0,
        };
        Beacon {
            users: vec![user; users],
            lead: Lead {
                first: true,
                ..Lead::default()
            },
            spec: spec.clone(),
            system,
            k,
            t: 0,
            pending: false,
            schedule: Vec::new(),
            talking: false,
            by_position: Vec::new(),
            reference: spec.convention == CodeConvention::Reference,
        }
    }

    /// The channel user `u` plays outside communication.
    fn choose(&mut self, u: usize, rng: &mut SimRng) -> usize {
        let k = self.k;
        let user = &mut self.users[u];
        match user.phase {
            Phase::Sample => {
                if user.id > 0 {
                    user.id - 1
                } else {
                    rng.random_range(0..k)
                }
            }
            Phase::Verify => {
                if user.id > 0 {
                    user.id - 1
                } else {
                    (user.round as usize - 1) % k
                }
            }
            Phase::Rank => {
                if user.round <= 2 * user.id as u64 {
                    user.id
                } else {
                    (user.last + 1) % k
                }
            }
            Phase::Initial => (user.position + user.round as usize) % k,
            Phase::Explore => user.explore,
        }
    }

    /// The reference's `update` outside communication; `true` when a communication is due.
    fn update(&mut self, u: usize, arm: usize, sample: bool, col: bool) -> bool {
        let k = self.k;
        let initial = self.spec.initial_pulls;
        let user = &mut self.users[u];
        match user.phase {
            Phase::Sample => {
                user.phase = Phase::Verify;
                user.collisions = 0;
                user.round = 1;
                if user.id == 0 && !col {
                    user.id = arm + 1;
                }
            }
            Phase::Verify => {
                user.collisions += u64::from(col);
                if user.round == k as u64 {
                    user.round = 1;
                    if user.collisions == 0 {
                        user.phase = Phase::Rank;
                        user.id -= 1;
                        user.last = user.id;
                    } else {
                        user.phase = Phase::Sample;
                    }
                    user.collisions = 0;
                } else {
                    user.round += 1;
                }
            }
            Phase::Rank => {
                user.last = arm;
                if col {
                    user.users += 1;
                    if user.round <= 2 * user.id as u64 {
                        user.position += 1;
                    }
                }
                if user.round == 2 * k as u64 {
                    user.position += 1;
                    user.comm = user.position - 1;
                    user.round = 0;
                    user.phase = Phase::Initial;
                } else {
                    user.round += 1;
                }
            }
            Phase::Initial => {
                user.learn(arm, sample, col);
                user.round += 1;
                if user.round == k as u64 * initial {
                    user.counters = user.pulls.iter().map(|&n| counter(n)).collect();
                    return true;
                }
            }
            Phase::Explore => {
                user.learn(arm, sample, col);
                user.round += 1;
                if user.position == 1 && user.round == self.lead.explore_length {
                    return true;
                }
            }
        }
        false
    }

    /// The leader's bookkeeping when its exploration ends (or the initial one): pulls and
    /// counters of the matched pairs, and who must report.
    fn close_exploration(&mut self) {
        let m = self.users.len();
        let lead = &mut self.lead;
        lead.need.clear();
        if lead.pulls.is_empty() {
            let k = self.k;
            let n = self.spec.initial_pulls;
            lead.pulls = vec![vec![n; k]; m];
            lead.counters = vec![vec![counter(n); k]; m];
            lead.stat = vec![vec![0.0; k]; m];
            lead.last_stat = vec![vec![0.0; k]; m];
            lead.comm = (0..m).collect();
            lead.need.extend(1..m);
            return;
        }
        for i in 0..m {
            let j = lead.matching[i];
            lead.pulls[i][j] += lead.explore_length;
            let c = counter(lead.pulls[i][j]);
            if c > lead.counters[i][j] {
                lead.counters[i][j] = c;
                if i > 0 {
                    lead.need.push(i);
                }
            }
        }
    }

    /// Plans the whole communication (its slots, in reverse order, into `schedule`) and
    /// applies what it carries: the leader's statistics, the matching, the next phase.
    fn communicate(&mut self) {
        let m = self.users.len();
        if self.by_position.is_empty() {
            self.by_position = vec![0; m];
            for (u, user) in self.users.iter().enumerate() {
                self.by_position[user.position - 1] = u;
            }
        }
        self.close_exploration();
        let pos = self.by_position.clone();
        let mut slots: Vec<Vec<usize>> = Vec::new();
        let comm = self.lead.comm.clone();
        // (i) The leader stops the exploration: one collision with each follower.
        if !self.lead.first {
            let mut plays: Vec<usize> = self.users.iter().map(|u| u.explore).collect();
            for i in 1..m {
                plays[pos[0]] = plays[pos[i]];
                slots.push(plays.clone());
            }
        }
        for &u in &pos[1..] {
            let f = &mut self.users[u];
            f.old_counters.clone_from(&f.counters);
            f.counters = f.pulls.iter().map(|&n| counter(n)).collect();
        }
        // (ii) Statistics. Between their signals everyone sits on its communication channel.
        if self.lead.first {
            self.send_means(&pos, &comm, &mut slots);
        } else {
            self.send_differences(&pos, &comm, &mut slots);
        }
        self.t += slots.len() as u64;
        self.match_by_ucb(&pos);
        // (iii) The assignment, ⌈log₂ K⌉ bits to each follower.
        let width = self.send_assignment(&pos, &comm, &mut slots);
        self.t += (m as u64 - 1) * width as u64;
        self.next_exploration(&pos);
        slots.reverse();
        self.schedule = slots;
    }

    /// The first communication: every follower's quantised means, bit by bit.
    fn send_means(&mut self, pos: &[usize], comm: &[usize], slots: &mut Vec<Vec<usize>>) {
        let q = self.lead.counters[0][0];
        for i in 1..pos.len() {
            let f = &self.users[pos[i]];
            for j in 0..self.k {
                let word = bits(f.means[j], q);
                for b in (0..q).rev() {
                    let mut plays = sitting(pos, comm);
                    if (word >> b) & 1 == 1 {
                        plays[pos[i]] = comm[0];
                    }
                    slots.push(plays);
                }
                self.lead.stat[i][j] = truncate(f.means[j], q);
            }
        }
    }

    /// A later communication: the leader signals those who must report, and each reports the
    /// last `lp` bits of its mean's change and its sign in the window that follows.
    fn send_differences(&mut self, pos: &[usize], comm: &[usize], slots: &mut Vec<Vec<usize>>) {
        let lp = self.spec.lp;
        let need = self.lead.need.clone();
        let window = (lp + 1) as usize;
        let start = slots.len();
        for &i in &need {
            let mut signal = sitting(pos, comm);
            signal[pos[0]] = comm[i];
            slots.push(signal);
            for _ in 0..lp {
                slots.push(sitting(pos, comm));
            }
        }
        for i in 1..pos.len() {
            let needs = need.iter().position(|&x| x == i);
            let f = &self.users[pos[i]];
            let arm = f.explore;
            let c = f.counters[arm];
            let new = truncate(f.means[arm], c);
            let old = truncate(f.last_means[arm], f.old_counters[arm]);
            let (size, up) = if new - old > 0.0 {
                (new - old, true)
            } else {
                (old - new, false)
            };
            // The message: the last `lp` of the difference's `c` bits and its sign.
            let word = (bits(size, c) << 1) | u64::from(up);
            if let Some(idx) = needs {
                let at = if self.reference { 0 } else { idx };
                for b in 0..lp as usize {
                    let bit = (word >> (lp as usize - 1 - b)) & 1;
                    if bit == 1 {
                        let slot = start + at * window + 1 + b;
                        if let Some(plays) = slots.get_mut(slot) {
                            plays[pos[i]] = comm[0];
                        }
                    }
                }
            }
            if needs.is_some() || self.reference {
                let d = truncate(size, lp - 1);
                self.lead.stat[i][arm] = if up { d } else { -d };
            }
        }
    }

    /// The leader's UCBs of every (follower, channel) pair, and the matching they give
    /// (unmatched users take the lowest free channels), and the next exploration's length.
    fn match_by_ucb(&mut self, pos: &[usize]) {
        let (m, k) = (pos.len(), self.k);
        let lead = &mut self.lead;
        for i in 0..m {
            for j in 0..k {
                lead.stat[i][j] += lead.last_stat[i][j];
            }
        }
        lead.stat[0].clone_from(&self.users[pos[0]].means);
        let log_t = math::ln(self.t.max(1) as f64);
        let ucb: Vec<Vec<f64>> = (0..m)
            .map(|i| {
                (0..k)
                    .map(|j| {
                        let n = math::powi(2f64, lead.counters[i][j] as i32 + 1);
                        lead.stat[i][j] + (3.0 * log_t / n).sqrt()
                    })
                    .collect()
            })
            .collect();
        let oracle = if self.reference {
            SystemReward::Linear
        } else {
            self.system
        };
        let assigned = oracle.assign(&ucb, k);
        let mut taken = vec![false; k];
        for c in assigned.iter().flatten() {
            taken[*c] = true;
        }
        lead.matching = assigned
            .iter()
            .map(|c| {
                c.unwrap_or_else(|| {
                    let free = taken.iter().position(|t| !t).unwrap_or(0);
                    taken[free] = true;
                    free
                })
            })
            .collect();
        let least = (0..m)
            .map(|i| lead.counters[i][lead.matching[i]])
            .min()
            .unwrap_or(0);
        lead.explore_length = 1u64 << least.min(62);
    }

    /// The assignment's slots, ⌈log₂ K⌉ bits to each follower; returns that width.
    fn send_assignment(&self, pos: &[usize], comm: &[usize], slots: &mut Vec<Vec<usize>>) -> u32 {
        let width = usize::BITS - (self.k.max(2) - 1).leading_zeros();
        for i in 1..pos.len() {
            let to = self.lead.matching[i] as u64;
            for b in (0..width).rev() {
                let mut plays = sitting(pos, comm);
                let bit = (to >> b) & 1;
                plays[pos[0]] = if self.reference {
                    // The reference's action string: the bits themselves as channels, after
                    // the leader's channel as padding.
                    let significant = (64 - to.leading_zeros()).max(1);
                    if b >= significant { comm[0] } else { bit as usize }
                } else if bit == 1 {
                    comm[i]
                } else {
                    comm[0]
                };
                slots.push(plays);
            }
        }
        width
    }

    /// The next exploration phase: every user on its matched channel.
    fn next_exploration(&mut self, pos: &[usize]) {
        let lead = &mut self.lead;
        lead.last_stat.clone_from(&lead.stat);
        lead.stat.iter_mut().flatten().for_each(|x| *x = 0.0);
        lead.comm.clone_from(&lead.matching);
        lead.first = false;
        for (p, &u) in pos.iter().enumerate() {
            let user = &mut self.users[u];
            user.explore = lead.matching[p];
            user.comm = lead.matching[p];
            user.round = 0;
            user.phase = Phase::Explore;
            // A follower's next difference is from what the leader holds: its last report.
            if p > 0 && (self.reference || lead.need.contains(&p)) {
                user.last_means.clone_from(&user.means);
            }
        }
    }
}

/// Everyone on its communication channel: the slot between signals.
fn sitting(pos: &[usize], comm: &[usize]) -> Vec<usize> {
    let mut plays = vec![0; pos.len()];
    for (p, &u) in pos.iter().enumerate() {
        plays[u] = comm[p];
    }
    plays
}

impl User {
    /// The reference's `_update_arm_stats`.
    fn learn(&mut self, arm: usize, sample: bool, col: bool) {
        if sample && !col {
            self.sums[arm] += 1.0;
        }
        self.pulls[arm] += 1;
        if self.pulls[arm].is_multiple_of(2) {
            self.means[arm] = self.sums[arm] / self.pulls[arm] as f64;
        }
    }
}

impl Team for Beacon {
    fn plan(&mut self, _t: u64, lists: &mut [Vec<usize>], rngs: &mut [SimRng]) {
        if self.pending {
            self.pending = false;
            self.communicate();
        }
        if let Some(plays) = self.schedule.pop() {
            self.talking = true;
            for (list, c) in lists.iter_mut().zip(plays) {
                list.push(c);
            }
            return;
        }
        self.talking = false;
        self.t += 1;
        for (u, (list, rng)) in lists.iter_mut().zip(rngs).enumerate() {
            let c = self.choose(u, rng);
            list.push(c);
        }
    }

    fn seen(&mut self, u: usize, seen: &Seen, _cost: f64, _rng: &mut SimRng) {
        if self.talking {
            return;
        }
        if let Some(c) = seen.last {
            let col = seen.collision == Some(true);
            if self.update(u, c, seen.sample, col) {
                self.pending = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::stream;

    #[test]
    fn truncation_is_the_references() {
        assert_eq!(bits(0.5, 3), 0b100);
        assert_eq!(bits(0.75, 2), 0b11);
        assert_eq!(bits(1.0, 4), 0b1111);
        assert_eq!(truncate(0.7, 3), 0.625);
        assert_eq!(truncate(1.0, 3), 0.875);
        assert_eq!(counter(300), 8);
        assert_eq!(counter(1), 0);
    }

    /// Plays the team on per-user means with the collision indicator every slot; returns the
    /// team and the last slot's channels.
    fn play(theta: &[Vec<f64>], spec: &BeaconSpec, slots: u64, seed: u64) -> (Beacon, Vec<usize>) {
        let (users, k) = (theta.len(), theta[0].len());
        let mut rngs: Vec<SimRng> = (0..users).map(|u| stream(seed, 1, u as u64)).collect();
        let mut world = stream(seed, 2, 0);
        let mut team = Beacon::new(k, users, spec, SystemReward::Linear);
        let mut lists = vec![Vec::new(); users];
        let mut chosen = Vec::new();
        for t in 1..=slots {
            lists.iter_mut().for_each(Vec::clear);
            team.plan(t, &mut lists, &mut rngs);
            chosen = lists.iter().map(|l| l[0]).collect();
            for u in 0..users {
                let c = chosen[u];
                let collision = chosen.iter().filter(|&&d| d == c).count() > 1;
                let seen = Seen {
                    transmitted: Some(c),
                    last: Some(c),
                    sample: world.random::<f64>() < theta[u][c],
                    collision: Some(collision),
                    ack: !collision,
                };
                team.seen(u, &seen, 0.0, &mut rngs[u]);
            }
        }
        (team, chosen)
    }

    /// The users find distinct positions, the leader learns the max-weight matching, and the
    /// exploration phases grow.
    #[test]
    fn the_leader_finds_the_matching() {
        let theta = vec![
            vec![0.9, 0.8, 0.1, 0.2],
            vec![0.85, 0.3, 0.2, 0.1],
            vec![0.9, 0.2, 0.75, 0.1],
        ];
        for convention in [CodeConvention::Paper, CodeConvention::Reference] {
            let spec = BeaconSpec {
                initial_pulls: 50,
                convention,
                ..BeaconSpec::default()
            };
            let (team, last) = play(&theta, &spec, 40_000, 3);
            let mut positions: Vec<usize> = team.users.iter().map(|u| u.position).collect();
            positions.sort_unstable();
            assert_eq!(positions, [1, 2, 3]);
            assert_eq!(last, [1, 0, 2], "{convention:?}");
            assert!(team.lead.explore_length >= 1 << 10, "{}", team.lead.explore_length);
        }
    }
}
