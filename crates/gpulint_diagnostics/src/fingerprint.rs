//! Fingerprints: what identifies a finding when the lines around it move. A finding is its
//! rule, its file and its subject (`aws_instance.trainer`, `Deployment/vllm`), never its line;
//! when one subject has several findings of one rule, their order tells them apart.

use std::collections::HashMap;

use crate::Outcome;

/// The key a baseline records and SARIF hashes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub rule: String,
    pub file: String,
    pub subject: String,
}

/// One key per finding of `outcome`, in the same order.
pub fn keys(outcome: &Outcome) -> Vec<Key> {
    outcome
        .findings
        .iter()
        .map(|f| Key {
            rule: f.rule.to_string(),
            // `/` on every platform, so a baseline written on Windows matches on Linux.
            file: outcome.db.get(f.primary.file).name.replace('\\', "/"),
            subject: f.subject.clone(),
        })
        .collect()
}

/// A stable hex digest per finding: its key and its place among findings with the same key.
pub fn digests(outcome: &Outcome) -> Vec<String> {
    let mut seen: HashMap<Key, u32> = HashMap::new();
    keys(outcome)
        .into_iter()
        .map(|k| {
            let n = seen.entry(k.clone()).or_insert(0);
            let digest = fnv1a(&[&k.rule, &k.file, &k.subject, &n.to_string()]);
            *n += 1;
            format!("{digest:016x}")
        })
        .collect()
}

/// FNV-1a, 64 bits, over the parts with a separator no part contains. Fixed forever: the
/// digests are stored by code-scanning services.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_vectors() {
        // http://www.isthe.com/chongo/src/fnv/test_fnv.c: FNV-1a 64 of "" and "a".
        assert_eq!(fnv1a(&[""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(&["a"]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(&["foobar"]), 0x8594_4171_f739_67e8);
        // The separator keeps ("ab", "c") apart from ("a", "bc").
        assert_ne!(fnv1a(&["ab", "c"]), fnv1a(&["a", "bc"]));
    }
}
