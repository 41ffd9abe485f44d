//! Widening: a sampler with one-word counts made again with two-word counts where a count
//! passes a word, in the middle of a batch (the same tours: draws read only the counts' values).

use super::*;

/// What a sampler is made of, kept to make it again with wider counts.
pub(super) struct Again {
    pub(super) board: Board,
    pub(super) walk: Walk,
    pub(super) req: Request,
    pub(super) log: MeetLeaves,
    pub(super) origin: String,
    pub(super) ledger: Option<Starts>,
    pub(super) nodes: Option<Arc<NodeStore>>,
}

/// A sampler whose tables hold one-word counts (see [`crate::sample::entry`]) until a count passes
/// the word ([`Fault::Wider`]): then made again with two-word counts, said on stderr, and the batch
/// drawn again (the same tours: the draws read the counts' values alone).
pub(super) struct Widening<K: Key> {
    /// `None` only where the wide sampler could not be made.
    pub(super) now: std::sync::Mutex<Option<Counts<K>>>,
    pub(super) again: Again,
    pub(super) total: u128,
}

pub(super) enum Counts<K: Key> {
    Narrow(Meet<K, u64>),
    Wide(Meet<K, u128>),
}

impl<K: Key> Counts<K> {
    pub(super) fn batch(&self) -> &dyn Batch {
        match self {
            Counts::Narrow(m) => m,
            Counts::Wide(m) => m,
        }
    }
}

impl<K: Key> Widening<K> {
    pub(super) fn new(again: Again) -> Result<Widening<K>, Fault> {
        let now = match Meet::<K, u64>::new(&again) {
            Ok(m) => Counts::Narrow(m),
            Err(Fault::Wider) => Counts::Wide(Widening::<K>::wider(&again, "")?),
            Err(e) => return Err(e),
        };
        Ok(Widening {
            total: now.batch().total(),
            now: std::sync::Mutex::new(Some(now)),
            again,
        })
    }

    /// The sampler of two-word counts, said (`when`: where the count passed, after "passes 64
    /// bits").
    pub(super) fn wider(again: &Again, when: &str) -> Result<Meet<K, u128>, Fault> {
        if let Some(tell) = again.req.tell {
            tell(&format!(
                "a count of {}'s tables passes 64 bits{when}: they are made again with counts of 128 bits ({} bytes a state where they took {})",
                again.board,
                entry_bytes::<K, u128>(),
                entry_bytes::<K, u64>()
            ));
        }
        Meet::new(again)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Option<Counts<K>>> {
        self.now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<K: Key> Batch for Widening<K> {
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault> {
        let mut now = self.lock();
        if let Some(Counts::Narrow(m)) = &*now {
            match m.draw(seed, first, n) {
                Err(Fault::Wider) => {
                    // the narrow tables let go before the wide are made
                    *now = None;
                    *now = Some(Counts::Wide(Widening::<K>::wider(
                        &self.again,
                        " in the batch, which is drawn again",
                    )?));
                }
                done => return done,
            }
        }
        match &*now {
            Some(c) => c.batch().draw(seed, first, n),
            None => Err(fault!(
                "the sampler of {} with counts of 128 bits could not be made before",
                self.again.board
            )),
        }
    }

    fn total(&self) -> u128 {
        self.total
    }

    fn describe(&self) -> String {
        self.lock()
            .as_ref()
            .map_or_else(String::new, |c| c.batch().describe())
    }
}
