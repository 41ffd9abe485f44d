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
