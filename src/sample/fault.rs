//! Why the exact sampler's tables could not be made or drawn from, typed: a count past a word
//! (the tables are made again with two-word counts), a file of the sampler's that failed (the
//! machine's failure, exit code 3), or anything else, said in words.

use crate::durable::DiskError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Fault {
    /// A count of the one-word tables passes 64 bits: the sampler is made again with two.
    #[error("a count of the exact sampler's tables passes 64 bits")]
    Wider,
    /// A file of the sampler's (its layers past the bound, a kept node, the leaves file) could
    /// not be written or read back.
    #[error(transparent)]
    Disk(#[from] DiskError),
    /// Why the sampler does not apply, does not fit, or stopped.
    #[error("{0}")]
    Why(String),
}

impl From<String> for Fault {
    fn from(why: String) -> Fault {
        Fault::Why(why)
    }
}

impl From<&str> for Fault {
    fn from(why: &str) -> Fault {
        Fault::Why(why.to_string())
    }
}

impl Fault {
    /// This fault said after `before` (why an earlier way did not apply), where it is one said
    /// in words.
    pub(crate) fn after(self, before: Option<&str>) -> Fault {
        match (self, before) {
            (Fault::Why(why), Some(b)) => Fault::Why(format!("{b}; {why}")),
            (f, _) => f,
        }
    }
}

/// `Fault::Why(format!(...))`.
macro_rules! fault {
    ($($t:tt)*) => {
        $crate::sample::fault::Fault::Why(format!($($t)*))
    };
}
pub(crate) use fault;
