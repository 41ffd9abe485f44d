//! Files that outlast a moment: written whole or not at all, locked by one run at a time, and
//! the files a run leaves on disk while it runs (tables past the memory bound, temporaries of
//! an atomic replace, node files being written): named by this process's run identity, claimed
//! by a lock its owner holds while it runs, and removed by the next run that looks at the folder
//! once no one holds that lock.
//!
//! A process id is not an identity where counts share a folder: another machine, or another
//! PID namespace (a container, `unshare --pid`), has its own processes of the same numbers, so a
//! count that judged a file by whether its process id is alive *here* removed the files of live
//! counts elsewhere, and two counts that were both process 1 wrote the same names. So every such
//! file is named `.knights-KIND.ID.REST`, where `ID` is 16 hex digits drawn at random once a
//! process ([`run_id`]), and a process that writes in a folder first holds a lock on its own file
//! there, `.knights-run.ID.lock` (an advisory `flock`, which the system releases when the process
//! ends however it ends, and which works across PID namespaces and, on NFS, across machines).
//! A file whose owner's lock is missing or free is stale: its owner has ended ([`sweep`]).

mod error;
mod lock;
mod replace;
mod run;

pub use error::{CheckpointError, DiskError, TABLE_FILE};
pub use lock::{CheckpointLock, TurnLock};
pub use replace::{beside, dead_temporaries, run_files, sweep_beside};
pub(crate) use replace::{read_regular, replace, replace_with, writable};
pub(crate) use run::same_file;
pub use run::{Claim, PREFIX, claim, name, remove_own, run_id, serial, stale, sweep};
