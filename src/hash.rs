//! Mixing 64-bit words: seeds for independent random streams, and hashes of tours.

/// splitmix64's finaliser: a bijection on 64-bit words that scatters every input bit over the
/// output, so that nearby inputs give unrelated-looking outputs.
#[must_use]
pub const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over a stream of bytes: the fingerprint of how a count is cut into pieces, written in
/// checkpoints. Stable across machines and versions of the standard library (unlike `Hasher`s
/// that are free to change), which is what a file read back later needs.
#[derive(Clone, Copy, Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds `bytes` to the fingerprint.
    pub fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The fingerprint so far.
    #[must_use]
    pub const fn value(self) -> u64 {
        self.0
    }
}
