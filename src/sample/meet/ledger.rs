//! The ledger sampler: a piece of a counted ledger drawn by its count, then a tour within it.

use super::*;

/// Where each piece of a ledger's count starts among the ranks (its pieces in the tree's
/// order, each by its record), and their total.
#[derive(Clone, Debug)]
pub(super) struct Starts {
    /// The depth of the pieces in the digit tree.
    pub(super) depth: usize,
    pub(super) starts: Vec<u128>,
    pub(super) total: u128,
}

impl Starts {
    /// The piece rank `r` falls in.
    pub(super) fn piece(&self, r: u128) -> usize {
        self.starts.partition_point(|&s| s <= r) - 1
    }
}

/// Exact sampling by way of a ledger (8x8 open, a count of hours): a uniform rank below the
/// ledger's total falls in a piece by its record; a batch counts again the pieces its ranks
/// fall in (each checked against its record), then draws inside them as [`Meet`] does, each
/// leaf placed among the ranks at its piece's start.
pub(super) struct FromLedger {
    pub(super) board: Board,
    pub(super) piece: Piece,
    pub(super) req: Request,
    pub(super) recorded: crate::engine::Recorded,
    pub(super) counts: Vec<u128>,
    pub(super) cpu: std::collections::BTreeMap<usize, f64>,
    pub(super) starts: Starts,
    pub(super) dir: String,
    /// The order the ledger's count walked its columns in: its pieces are counted again so.
    pub(super) order: crate::engine::Order,
}

/// The sampler of the count in the ledger `whole` (read from `dir`), or why not.
pub(crate) fn from_ledger(
    board: Board,
    piece: &Piece,
    req: &Request,
    whole: crate::count::folder::Whole,
    dir: &str,
) -> Result<Box<dyn Batch>, Fault> {
    let id = &whole.id;
    let kind = |closed: bool| if closed { "closed" } else { "open" };
    let asked = (board, piece.to_string(), req.closed);
    if (id.board, id.piece.clone(), id.closed) != asked {
        return Err(fault!(
            "the ledger in '{dir}' counts {} tours of {} by the {}, not {} tours of {board} by the {piece}",
            kind(id.closed),
            id.board,
            id.piece,
            kind(req.closed)
        ));
    }
    let depth = crate::frontier::depth_of_param(id.split);
    let (Some(depth), true, None, None, true) = (
        depth,
        id.symmetry,
        &id.from,
        &id.to,
        id.engine == crate::count::Engine::Frontier.name(),
    ) else {
        return Err(fault!(
            "the ledger in '{dir}' is not of a symmetric frontier count met in the middle and cut by its digit tree, from every square: the only counts tours are drawn from by way of a ledger"
        ));
    };
    if req.from.is_some() {
        return Err("tours drawn by way of a ledger start on any square (no --from)".into());
    }
    crate::frontier::check_sample_floor(
        board,
        &Walk::new(board, piece, false, id.order),
        req.max_memory,
        crate::sample::CHOICE_THREADS,
    )?;
    // what the sampler's own count would cut otherwise: it counts one shard, narrow, the total
    let other = [
        (
            id.shard.count != 1,
            "cut into shards (the sampler counts its pieces as one run)",
        ),
        (id.wide, "walked across the long side (--window wide)"),
        (id.per_square, "counted per start square"),
    ];
    if let Some((_, why)) = other.iter().find(|(x, _)| *x) {
        return Err(fault!(
            "the ledger in '{dir}' is of a count {why}: tours are drawn by way of a ledger of one run, narrow, of the total"
        ));
    }
    let mut starts = Vec::with_capacity(whole.counts.len());
    let mut total = 0u128;
    let mut counts = Vec::with_capacity(whole.counts.len());
    for c in &whole.counts {
        let c =
            u128::try_from(c).map_err(|_| format!("a piece of '{dir}' counts past 128 bits"))?;
        starts.push(total);
        counts.push(c);
        total = total
            .checked_add(c)
            .ok_or_else(|| fault!("the ledger in '{dir}' counts past 128 bits"))?;
    }
    Ok(Box::new(FromLedger {
        board,
        piece: piece.clone(),
        req: req.clone(),
        recorded: crate::engine::Recorded {
            pieces: id.units,
            param: id.split,
            fingerprint: id.fingerprint,
        },
        counts,
        cpu: whole.cpu,
        starts: Starts {
            depth: depth as usize,
            starts,
            total,
        },
        dir: dir.to_string(),
        order: id.order,
    }))
}

impl FromLedger {
    /// The CPU seconds the ledger's records say `pieces` took (a piece whose record says none
    /// at the mean of those that do), and how many records say.
    pub(super) fn cpu_of(&self, pieces: &[usize]) -> (f64, usize) {
        let mean = if self.cpu.is_empty() {
            0.0
        } else {
            self.cpu.values().sum::<f64>() / self.cpu.len() as f64
        };
        let said = pieces.iter().filter(|p| self.cpu.contains_key(p)).count();
        (
            pieces
                .iter()
                .map(|p| self.cpu.get(p).copied().unwrap_or(mean))
                .sum(),
            said,
        )
    }
}

impl Batch for FromLedger {
    fn draw(&self, seed: u64, first: u64, n: usize) -> Result<Vec<(Vec<u32>, bool)>, Fault> {
        // the ranks the batch draws (as `Meet::draw` draws them again), and their pieces
        let pieces: std::collections::BTreeSet<usize> = (0..n)
            .map(|j| {
                let mut rng = tour_rng(seed, first + j as u64);
                self.starts.piece(below_u128(&mut rng, self.starts.total))
            })
            .collect();
        let pieces: Vec<usize> = pieces.into_iter().collect();
        if let Some(tell) = self.req.tell {
            let (cpu, said) = self.cpu_of(&pieces);
            let threads = rayon::current_num_threads().max(1);
            let shown: Vec<String> = pieces.iter().take(12).map(ToString::to_string).collect();
            tell(&format!(
                "this batch of {n} tour{} lands in {} of the ledger's {} pieces ({}{}): counting them again is projected at about {} on {threads} thread{} from the CPU time their records give ({} of {} records give it, the others taken at the mean; the records' build may differ from this one), plus the walk the pieces share and the leaves the tours land in, made again",
                crate::human::plural(n as u64),
                pieces.len(),
                self.counts.len(),
                shown.join(", "),
                if pieces.len() > shown.len() {
                    ", …"
                } else {
                    ""
                },
                crate::count::human_duration(cpu / threads as f64),
                crate::human::plural(threads as u64),
                said,
                pieces.len()
            ));
        }
        let spec = CountSpec {
            closed: self.req.closed,
            symmetry: true,
            order: self.order,
            ..CountSpec::default()
        };
        let t = std::time::Instant::now();
        let chosen = crate::frontier::Chosen {
            recorded: self.recorded.clone(),
            pieces: pieces.clone(),
        };
        let log = crate::frontier::meet_leaves(
            self.board,
            &self.piece,
            &spec,
            self.req.max_memory,
            Some(chosen),
        )
        .map_err(|e| format!("the ledger in '{}': {e}", self.dir))?
        .ok_or_else(|| {
            format!(
                "the frontier count of {} does not meet in the middle",
                self.board
            )
        })?;
        crate::memory::give_back();
        for &p in &pieces {
            let got = log
                .pieces
                .get(&p)
                .map(|c| u128::try_from(c).unwrap_or(u128::MAX));
            if got != Some(self.counts[p]) {
                return Err(fault!(
                    "piece {p} of the ledger in '{}' counted again {}, but its record says {}: a fault in this build or in the record (the batch is stopped)",
                    self.dir,
                    got.map_or_else(
                        || "nothing (it did not fit the memory bound)".to_string(),
                        |c| c.to_string()
                    ),
                    self.counts[p]
                ));
            }
        }
        if let Some(tell) = self.req.tell {
            tell(&format!(
                "the {} piece{} counted again in {}, each equal to its record; drawing inside {}",
                pieces.len(),
                crate::human::plural(pieces.len() as u64),
                crate::count::human_duration(t.elapsed().as_secs_f64()),
                if pieces.len() == 1 { "it" } else { "them" }
            ));
        }
        let walk = Walk::new(self.board, &self.piece, false, self.order);
        let meet = make(
            self.board,
            walk,
            &self.req,
            log,
            &format!("counted in {:.1} s", t.elapsed().as_secs_f64()),
            Some(&self.starts),
            None,
        )?;
        meet.draw(seed, first, n)
    }

    fn total(&self) -> u128 {
        self.starts.total
    }

    fn describe(&self) -> String {
        format!(
            "by way of the ledger in '{}': {} pieces of the digit tree's depth {}, each drawn by its record; a batch counts again the pieces it lands in, each checked against its record, and makes again the leaves it lands in",
            self.dir,
            self.counts.len(),
            self.starts.depth
        )
    }
}
