//! An optional keyed MAC on shards, for partials that cross a trust boundary.
//!
//! The checksum of `partial.json` detects damage, not forgery: anyone can recompute a
//! SHA-256. With a secret key in `SPECPROBE_SHARD_KEY` (the same on every machine that runs a
//! shard and on the one that merges), `run --shard` adds `mac`, an HMAC-SHA256 under that key
//! of the checksum (itself the SHA-256 of the rest of the file, which `merge` checks), and
//! `merge` then requires every shard to carry a `mac` that verifies. Without the key nothing is
//! signed and nothing is required.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The environment variable holding the key.
pub(crate) const KEY_VAR: &str = "SPECPROBE_SHARD_KEY";

/// The key, when one is set (an empty value counts as none).
pub(crate) fn key() -> Option<Vec<u8>> {
    std::env::var_os(KEY_VAR)
        .filter(|v| !v.is_empty())
        .map(|v| v.into_encoded_bytes())
}

fn mac(key: &[u8], checksum: &str) -> Hmac<Sha256> {
    let mut m =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    m.update(checksum.as_bytes());
    m
}

/// The MAC (hex) of a partial whose checksum is `checksum`.
pub(crate) fn sign(key: &[u8], checksum: &str) -> String {
    mac(key, checksum)
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `tag` (hex) is the MAC of `checksum` under `key` (compared in constant time).
pub(crate) fn verify(key: &[u8], checksum: &str, tag: &str) -> bool {
    if tag.len() != 64 || !tag.is_ascii() {
        return false;
    }
    let bytes: Option<Vec<u8>> = (0..32)
        .map(|i| u8::from_str_radix(&tag[2 * i..2 * i + 2], 16).ok())
        .collect();
    bytes.is_some_and(|b| mac(key, checksum).verify_slice(&b).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mac_verifies_under_its_key_only() {
        let tag = sign(b"secret", "abc");
        assert_eq!(tag.len(), 64);
        assert!(verify(b"secret", "abc", &tag));
        assert!(!verify(b"other", "abc", &tag));
        assert!(!verify(b"secret", "abd", &tag));
        assert!(!verify(b"secret", "abc", &tag[..62]));
        assert!(!verify(b"secret", "abc", "zz"));
    }
}
