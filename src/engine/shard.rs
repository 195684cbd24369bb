//! Which runs one process simulates: `--shard I/N` takes the runs `r` with `r % N == I`, so that
//! shards on many machines together hold every run exactly once and merge into the unsharded
//! results byte for byte.

/// Which of the run indices `0..runs` this process simulates: those with
/// `run % count == index`. The whole job is shard `0/1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Whether run `run` belongs to this shard.
    pub fn contains(&self, run: u64) -> bool {
        run % self.count == self.index
    }

    /// How many of the runs `0..runs` this shard holds.
    pub fn runs_of(&self, runs: u64) -> u64 {
        runs / self.count + u64::from(self.index < runs % self.count)
    }

    /// The `i`-th run of this shard (`i < runs_of(runs)`).
    pub(crate) fn run(&self, i: u64) -> u64 {
        self.index + i * self.count
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `I/N` (0-based `I < N`).
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("expected I/N such as 0/4, got {s:?}"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index {i:?} is not a number"))?;
        let count: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("shard count {n:?} is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard index must be below the shard count (0 ≤ I < N), got {index}/{count}"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_runs() {
        let shards: Vec<Shard> = (0..3).map(|i| Shard { index: i, count: 3 }).collect();
        for run in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.contains(run)).count(), 1);
        }
        assert_eq!(
            "2/5".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 5 }
        );
        assert!("5/5".parse::<Shard>().is_err());
        assert!("1-5".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
    }
}
