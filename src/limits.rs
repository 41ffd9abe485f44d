//! The bounds of the problems the program takes, in one place below everything that checks them
//! (the board and piece parsers) and everything that names them (the error messages).

/// The largest side a board may have.
pub const MAX_SIDE: u32 = 10_000;

/// The largest leap component accepted.
pub const MAX_LEAP: u32 = 64;
