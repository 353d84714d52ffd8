//! Write tokens: 32 random bytes from the kernel, shown once as hex; the
//! store keeps only their SHA-256.

use sha2::{Digest, Sha256};
use std::io::Read;

/// A new token: `toll_` and 64 hex digits (256 bits from /dev/urandom).
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(format!("toll_{}", hex(&bytes)))
}

/// The SHA-256 of `token`, lowercase hex: what the store keeps.
pub fn sha256_hex(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_and_hash_as_sha256() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("toll_") && a.len() == 5 + 64, "{a}");
        // SHA-256("abc"), FIPS 180-2's example.
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
