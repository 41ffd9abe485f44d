//! The walk of a frontier along a board, below any engine that counts with it: the order it
//! takes the squares in and the window of squares it holds (`layout`, and `order` for the rows
//! of a column), the states of that window (`state`, `entry`), how a state steps over a square
//! (`expand`), and how large its layers grow and what they take in memory (`growth`, `sizes`).

pub(crate) mod entry;
pub(crate) mod expand;
pub(crate) mod growth;
pub(crate) mod layout;
pub(crate) mod order;
pub(crate) mod sizes;
pub(crate) mod state;
