//! The integration tests, one binary (one link of the release build instead of seven): each module
//! is the suite that used to be a file of its own under `tests/`.

mod cli;
mod construction;
mod cross_check;
mod install;
mod known_counts;
mod listing;
mod long_runs;
mod messages;
mod properties;
mod readme;
mod rows;
mod sampling;
mod tally;
mod trust;
