//! Walking a layer of states through steps: every state expanded in parallel into the next layer,
//! counts widened when they outgrow their words, the memory bound and the stop flag honoured.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use rayon::prelude::*;

use super::expand::expand;
use super::layout::Step;
use super::state::Key;
use super::table::{Batch, Bound, Builder, Layer, Stopped};

/// What a walk keeps to itself between layers.
pub(crate) struct Sweep<'a, K: Key> {
    pub(crate) closed: bool,
    /// The most bytes the tables, and the whole process, may hold.
    pub(crate) limit: Bound,
    pub(crate) stop: &'a AtomicBool,
    /// The most bytes the tables held so far.
    pub(crate) peak_bytes: u64,
    /// The most states a layer held so far.
    pub(crate) peak_states: u64,
    /// A layer no longer needed, whose memory the next layer reuses.
    pub(crate) spare: Option<Layer<K>>,
    /// The growth (states after over states before) of the last step at each place in a column
    /// (see [`Step::row`]), for sizing the next table, and the one before it at that place.
    pub(crate) growth: Vec<f64>,
    pub(crate) older: Vec<f64>,
    /// The last step's growth, for a place not seen yet.
    pub(crate) last_growth: f64,
    /// States read by the steps so far (for the rate a state costs).
    pub(crate) read: u64,
}

/// A number from its little-endian bytes (a table's count).
pub(crate) fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_le(bytes)
}

/// A number from little-endian 64-bit words.
pub(crate) fn big_words(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

impl<K: Key> Sweep<'_, K> {
    /// One step; on overflow the counts get one more word and the step is done again.
    /// Keeps `old` for the memory of a later layer.
    pub(crate) fn recycle(&mut self, old: Layer<K>) {
        self.spare = Some(old);
    }

    /// A table for about `expect` states made from `layer`, beside it, in the spare layer's
    /// memory where it suits, under the bound.
    fn builder(&mut self, layer: &Layer<K>, expect: u64) -> Builder<K> {
        Builder::new(
            expect,
            layer.shape(),
            layer.bytes(),
            self.limit,
            self.spare.take(),
        )
    }

    pub(crate) fn step(
        &mut self,
        layer: &Layer<K>,
        step: &Step<K>,
        keep: impl Fn(K) -> bool + Sync,
    ) -> Result<(Layer<K>, BigUint), Stopped> {
        let mut widened;
        let mut src = layer;
        loop {
            match self.try_step(src, step, &keep) {
                Ok(r) => return Ok(r),
                Err(Stopped::Overflow) => {
                    widened = src.widened(src.limbs() + 1);
                    src = &widened;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The states of `layer` that `keep` keeps, in a new layer (a piece's share of the split
    /// layer): about `expect` of them.
    pub(crate) fn select(
        &mut self,
        layer: &Layer<K>,
        expect: u64,
        keep: impl Fn(K) -> bool + Sync,
    ) -> Result<Layer<K>, Stopped> {
        let builder = self.builder(layer, expect);
        (0..layer.part_count()).into_par_iter().for_each(|p| {
            let mut batch = Batch::new(&builder);
            for (key, count) in layer.part(p) {
                if keep(key) {
                    batch.push(key, count);
                }
            }
        });
        self.peak_bytes = self.peak_bytes.max(builder.bytes());
        builder.finish()
    }

    fn try_step(
        &mut self,
        layer: &Layer<K>,
        step: &Step<K>,
        keep: &(impl Fn(K) -> bool + Sync),
    ) -> Result<(Layer<K>, BigUint), Stopped> {
        // a table sized for the layer to come rarely has to grow (growing rehashes a partition
        // into fresh memory); its growth is guessed from the step at the same place in the
        // column before, scaled by how the last step compared with its own counterpart there
        let row = step.row as usize;
        let guess = match (self.growth.get(row), row.checked_sub(1)) {
            (Some(&same), Some(r)) if r < self.older.len() && self.older[r] > 0.0 => {
                same * (self.last_growth / self.older[r]).clamp(0.5, 2.0)
            }
            (Some(&same), _) => same,
            (None, _) => self.last_growth,
        };
        let expect = (layer.len() as f64 * (guess * 1.1).clamp(0.25, 4.0)) as u64;
        let builder = self.builder(layer, expect);
        self.read += layer.len();
        let tours = Mutex::new(BigUint::ZERO);
        let (closed, stop) = (self.closed, self.stop);
        // a few chunks of partitions a thread, each with one batch, for balance
        let parts = layer.part_count();
        let chunk = (parts / (rayon::current_num_threads() * 8)).clamp(1, parts);
        (0..parts.div_ceil(chunk)).into_par_iter().for_each(|c| {
            let mut batch = Batch::new(&builder);
            let mut done = BigUint::ZERO;
            for p in c * chunk..((c + 1) * chunk).min(parts) {
                // Relaxed: the flag only asks the workers to stop; nothing else hangs on it
                if stop.load(Ordering::Relaxed) || builder.failed() {
                    return;
                }
                for (key, count) in layer.part(p) {
                    let finished = expand(key, step, closed, |next| {
                        if keep(next) {
                            batch.push(next, count);
                        }
                    });
                    if finished > 0 {
                        done += big(count.bytes()) * finished;
                    }
                }
            }
            if done != BigUint::ZERO {
                *tours.lock().expect("no worker panics holding the lock") += done;
            }
        });
        self.peak_bytes = self.peak_bytes.max(builder.bytes());
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped::Interrupted);
        }
        let next = builder.finish()?;
        let growth = next.len() as f64 / layer.len().max(1) as f64;
        if self.growth.len() <= row {
            self.growth.resize(row + 1, growth);
            self.older.resize(row + 1, 0.0);
        }
        self.older[row] = std::mem::replace(&mut self.growth[row], growth);
        self.last_growth = growth;
        Ok((next, tours.into_inner().expect("the workers are done")))
    }
}
