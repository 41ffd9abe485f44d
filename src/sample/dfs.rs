//! Exact uniform sampling on boards of up to 64 squares: the counting search descended from its
//! root, each move taken with probability proportional to the number of tours below it.
//!
//! One uniform integer `r` below the number of tours picks the tour: at every node the children
//! are taken in the search's order and `r` falls in exactly one child's share (the tour's rank,
//! unranked). The first moves of every path are held as a graph of numbered nodes, one level a
//! depth, each node with its count and its children's numbers, built once: breadth first (each
//! level sorted, repeats merged), the deepest level counted by the counting kernel and every
//! level above summed from the one below. A descent through them is array reads, no hashing,
//! and nothing is written while tours are drawn, so drawing threads never wait for each other;
//! below them the kernel ([`Problem::count`], with its per-thread memo) counts the small
//! subtrees each time a descent needs them.

use rayon::prelude::*;

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::graph::SmallGraph;
use crate::piece::Piece;
use crate::search::{Problem, fresh_ids, with_memo};

use super::Request;

/// The tables go down to subtrees of this many free squares: below, the kernel counts a subtree
/// in microseconds (its memo holds the small ones), while the levels would keep growing. On 6x6
/// open, tables down to 20, 18, 16, 14 free squares drew 73, 93, 111, 115 thousand tours a
/// second on one thread (`results/sampling.md`).
const TABLE_MIN: u32 = 16;

/// The most nodes the tables hold in all (a level that would pass it is not added; the memory
/// bound may lower it, at [`BYTES_PER_NODE`] a node). 6x6 open needs 3.2 million down to
/// [`TABLE_MIN`], 6x7 closed 3.1 million.
const TABLE_NODES: usize = 1 << 23;

/// Memory a node of the tables takes, a generous figure: 12 bytes kept (its count and where its
/// children start) and 4 a child, and while a level is built 16 bytes a node and a child.
const BYTES_PER_NODE: u64 = 64;

/// One search: paths from `start` over `free` ending on a square of non-zero `weight`.
#[derive(Clone, Debug)]
struct Root {
    start: u32,
    free: Bitboard,
    weight: [u8; 64],
    /// The first root with the same weights: roots of one class have the same counts below
    /// any node, so they share their table entries and memo.
    class: u32,
    /// Its node in the first level of the tables.
    node: u32,
    count: u64,
}

/// A way to turn a path of a root into a drawn tour: the root, a permutation of the squares (a
/// symmetry of the board, open tours only) and how many tours it stands for.
#[derive(Clone, Debug)]
struct Entry {
    root: usize,
    perm: Option<Vec<u32>>,
    weight: u64,
}

/// A node of the tables: the free squares, then the current square and the root's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    free: u64,
    tag: u32,
}

impl Node {
    fn new(free: Bitboard, cur: u32, class: u32) -> Node {
        Node {
            free: free.0,
            tag: cur | class << 8,
        }
    }

    fn cur(self) -> u32 {
        self.tag & 0xFF
    }

    fn class(self) -> u32 {
        self.tag >> 8
    }
}

/// One depth of the tables: its live nodes by number (in the order of their keys), the paths
/// below each, and each one's children in the next depth, in the search's move order.
#[derive(Default)]
struct Level {
    counts: Vec<u64>,
    /// The children of node `i` are `kids[first[i]..first[i + 1]]` (empty at the deepest level).
    first: Vec<u32>,
    kids: Vec<u32>,
}

/// The tables of an exact DFS sampler.
pub(crate) struct Dfs {
    graph: SmallGraph,
    roots: Vec<Root>,
    entries: Vec<Entry>,
    /// Closed tours: the anchor square in front of every path.
    anchor: Option<u32>,
    total: u64,
    id: u64,
    /// `levels[d]`: every live node `d` moves below a root, for the first depths.
    levels: Vec<Level>,
}

impl Dfs {
    /// Builds the tables of `req` (in parallel) and gets ready to draw.
    pub(crate) fn new(board: Board, piece: &Piece, req: &Request) -> Dfs {
        let budget = usize::try_from(req.max_memory / BYTES_PER_NODE)
            .unwrap_or(usize::MAX)
            .min(TABLE_NODES);
        Dfs::with_budget(board, piece, req, budget)
    }

    /// [`Dfs::new`] with at most `budget` nodes in the tables.
    fn with_budget(board: Board, piece: &Piece, req: &Request, budget: usize) -> Dfs {
        let g = SmallGraph::new(board, piece).expect("a board of up to 64 squares");
        let all = g.all;
        let plain = |start: u32, free: Bitboard, ends: Bitboard| {
            let mut weight = [0u8; 64];
            for e in ends {
                weight[e as usize] = 1;
            }
            if free.is_empty() {
                // the one-square board: the path ends where it starts
                weight[start as usize] = 1;
            }
            Root {
                start,
                free,
                weight,
                class: 0,
                node: 0,
                count: 0,
            }
        };
        let mut roots = Vec::new();
        let mut entries = Vec::new();
        let mut anchor = None;
        if req.closed {
            // every cycle passes the square of least degree: a path between two of its
            // neighbours through every other square, each cycle once (the pair unordered)
            let a = (0..g.n)
                .min_by_key(|&s| g.masks[s as usize].count())
                .expect("a square");
            let nb: Vec<u32> = g.masks[a as usize].iter().collect();
            for (i, &x) in nb.iter().enumerate() {
                for &y in &nb[i + 1..] {
                    roots.push(plain(
                        x,
                        all.without(a).without(x),
                        Bitboard::from_square(y),
                    ));
                }
            }
            anchor = Some(a);
        } else if let Some(s) = req.from {
            let s = board.index(s);
            roots.push(plain(s, all.without(s), all.without(s)));
        } else {
            // one search per orbit of the board's symmetries; a path from the orbit's first
            // square, mapped by a symmetry, is a path from any square of the orbit
            let perms: Vec<Vec<u32>> = board
                .symmetries()
                .into_iter()
                .map(|s| board.permutation(s))
                .collect();
            for orbit in board.orbits() {
                let rep = orbit[0];
                let r = roots.len();
                // every square but the start may be the end: within the free squares, which
                // never hold the start, the weights of all these roots agree
                let mut root = plain(rep, all.without(rep), all.without(rep));
                root.weight[rep as usize] = 1;
                roots.push(root);
                for &s in &orbit {
                    let perm = perms.iter().find(|p| p[rep as usize] == s).expect("orbit");
                    entries.push(Entry {
                        root: r,
                        perm: (s != rep).then(|| perm.clone()),
                        weight: 0,
                    });
                }
            }
        }
        for i in 0..roots.len() {
            let same = roots[..i]
                .iter()
                .position(|r| r.weight == roots[i].weight)
                .unwrap_or(i);
            roots[i].class = same as u32;
        }
        if entries.is_empty() {
            entries = (0..roots.len())
                .map(|root| Entry {
                    root,
                    perm: None,
                    weight: 0,
                })
                .collect();
        }
        let mut d = Dfs {
            graph: g,
            roots,
            entries,
            anchor,
            total: 0,
            id: fresh_ids(64),
            levels: Vec::new(),
        };
        let (levels, firsts) = d.build(budget);
        d.levels = levels;
        for (r, i) in d.roots.iter_mut().zip(firsts) {
            r.node = i;
            r.count = d.levels[0].counts[i as usize];
        }
        for e in &mut d.entries {
            e.weight = d.roots[e.root].count;
        }
        d.total = d.entries.iter().map(|e| e.weight).sum();
        d
    }

    /// The problem of a class of roots.
    fn problem(&self, class: u32) -> Problem<'_> {
        Problem::weighted(
            &self.graph,
            self.roots[class as usize].weight,
            self.id + u64::from(class),
        )
    }

    /// The tables, and the node of each root in the first level: the live nodes level by level
    /// from the roots (breadth first, each level sorted and without repeats) while a level has
    /// at least [`TABLE_MIN`] free squares and the whole fits `budget`; the deepest level
    /// counted by the kernel, each level above summed from its children.
    fn build(&self, budget: usize) -> (Vec<Level>, Vec<u32>) {
        let problems: Vec<Problem<'_>> = (0..self.roots.len() as u32)
            .map(|c| self.problem(c))
            .collect();
        let children = |n: Node| {
            let p = &problems[n.class() as usize];
            let free = Bitboard(n.free);
            p.moves(free, n.cur())
                .iter()
                .map(move |w| Node::new(free.without(w), w, n.class()))
        };
        let roots: Vec<Node> = self
            .roots
            .iter()
            .map(|r| Node::new(r.free, r.start, r.class))
            .collect();
        let mut nodes = roots.clone();
        nodes.sort_unstable();
        nodes.dedup();
        let firsts = roots
            .iter()
            .map(|r| nodes.binary_search(r).expect("a root") as u32)
            .collect();
        let mut held = nodes.len();
        let mut levels = vec![Level::default()];
        // every root has the same number of free squares, so a level is one depth of them all
        let mut free = self.roots[0].free.count();
        while free > TABLE_MIN {
            // the edges of a node are numbered in move order, after those of the nodes before it
            let degrees: Vec<u32> = nodes
                .par_iter()
                .map(|n| {
                    problems[n.class() as usize]
                        .moves(Bitboard(n.free), n.cur())
                        .count()
                })
                .collect();
            let mut first = Vec::with_capacity(nodes.len() + 1);
            first.push(0u32);
            for d in degrees {
                first.push(first.last().expect("one") + d);
            }
            let edges = *first.last().expect("one") as usize;
            // the edges take memory too, for a while: twice the budget's worth at most
            if held + edges > 2 * budget {
                break;
            }
            let mut order: Vec<(u64, u32, u32)> = nodes
                .par_iter()
                .zip(&first)
                .flat_map_iter(|(&n, &e)| children(n).zip(e..).map(|(c, e)| (c.free, c.tag, e)))
                .collect();
            order.par_sort_unstable_by_key(|&(f, t, _)| (f, t));
            let mut next: Vec<Node> = Vec::new();
            let mut kids = vec![0u32; order.len()];
            for &(f, t, e) in &order {
                let n = Node { free: f, tag: t };
                if next.last() != Some(&n) {
                    next.push(n);
                }
                kids[e as usize] = next.len() as u32 - 1;
            }
            drop(order);
            if held + next.len() > budget {
                break;
            }
            held += next.len();
            let last = levels.last_mut().expect("the roots' level");
            last.first = first;
            last.kids = kids;
            levels.push(Level::default());
            nodes = next;
            free -= 1;
        }
        // the deepest level by the kernel, then each level above from the one below
        levels.last_mut().expect("the roots' level").counts = nodes
            .par_iter()
            .map(|n| {
                let p = &problems[n.class() as usize];
                with_memo(|m| p.count(Bitboard(n.free), n.cur(), m))
            })
            .collect();
        for d in (0..levels.len() - 1).rev() {
            let (upper, lower) = levels.split_at_mut(d + 1);
            let (level, below) = (&mut upper[d], &lower[0].counts);
            level.counts = (0..level.first.len() - 1)
                .into_par_iter()
                .map(|i| {
                    level.kids[level.first[i] as usize..level.first[i + 1] as usize]
                        .iter()
                        .map(|&c| below[c as usize])
                        .sum()
                })
                .collect();
        }
        (levels, firsts)
    }

    /// Tours to draw from: directed open tours (from the start square, if one is given) or
    /// undirected cycles.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The searches, in a few words.
    pub(crate) fn roots_described(&self) -> String {
        match (self.anchor, self.roots.len()) {
            (Some(_), r) => {
                format!(
                    "cycles through the square of least degree, as paths between its neighbours ({r} pair{})",
                    if r == 1 { "" } else { "s" }
                )
            }
            (None, 1) => "paths from the start square".into(),
            (None, r) => format!("one search per symmetry orbit of start squares: {r}"),
        }
    }

    /// Nodes in the tables.
    pub(crate) fn held(&self) -> usize {
        self.levels.iter().map(|l| l.counts.len()).sum()
    }

    /// Moves below the roots the tables reach.
    pub(crate) fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    /// The tour of rank `r` (below [`Dfs::total`]) as square indices in path order; closed tours
    /// start on the anchor.
    pub(crate) fn unrank(&self, mut r: u64) -> Vec<u32> {
        let entry = self
            .entries
            .iter()
            .find(|e| {
                if r < e.weight {
                    return true;
                }
                r -= e.weight;
                false
            })
            .expect("the rank is below the total");
        let root = &self.roots[entry.root];
        let p = self.problem(root.class);
        let (mut free, mut cur) = (root.free, root.start);
        let mut path = Vec::with_capacity(self.graph.n as usize);
        path.extend(self.anchor);
        path.push(cur);
        // the node's number in its level while the tables reach, then the kernel's counts
        let mut node = Some(root.node as usize);
        let mut depth = 0;
        while free.any() {
            let mut next = None;
            let mut choose = |count: &mut dyn FnMut(usize, Bitboard, u32) -> u64| {
                for (i, w) in p.moves(free, cur).iter().enumerate() {
                    let c = count(i, free.without(w), w);
                    if r < c {
                        next = Some((i, w));
                        return;
                    }
                    r -= c;
                }
            };
            let kids = node.filter(|_| depth + 1 < self.levels.len()).map(|i| {
                let level = &self.levels[depth];
                (
                    &level.kids[level.first[i] as usize..level.first[i + 1] as usize],
                    &self.levels[depth + 1],
                )
            });
            if let Some((kids, below)) = kids {
                choose(&mut |i, _, _| below.counts[kids[i] as usize]);
            } else {
                with_memo(|m| choose(&mut |_, f, w| p.count(f, w, m)));
            }
            let (i, w) = next.expect("the children's counts add up to the parent's");
            node = kids.map(|(kids, _)| kids[i] as usize);
            depth += 1;
            free = free.without(w);
            cur = w;
            path.push(w);
        }
        if let Some(perm) = &entry.perm {
            for s in &mut path {
                *s = perm[*s as usize];
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Tables;

    fn request(closed: bool, from: Option<&str>, board: Board) -> Request {
        Request {
            tables: Tables::Search,
            closed,
            from: from.map(|s| board.parse_square(s).expect("a square")),
            max_memory: 1 << 30,
            scratch: std::env::temp_dir(),
            seconds: None,
            tell: None,
            ledger: None,
            leaves: None,
            nodes: None,
        }
    }

    /// The tables change no rank's tour (so the same seed gives the same tours): tables cut at
    /// every depth give the tours of the plain descent, whose every count comes from the kernel
    /// (a budget of one node holds only the roots).
    #[test]
    fn the_tables_keep_the_ranks_of_the_plain_descent() {
        let knight = Piece::knight();
        for (name, closed, from, ranks) in [
            ("5x5", false, None, u64::MAX),
            ("5x6", false, Some("c3"), u64::MAX),
            ("6x6", true, None, u64::MAX),
            ("3x12", true, None, u64::MAX),
            ("6x6", false, None, 24),
        ] {
            let board: Board = name.parse().expect("a board");
            let req = request(closed, from, board);
            let full = Dfs::new(board, &knight, &req);
            let cut: Vec<Dfs> = [1, 1_000, 100_000]
                .iter()
                .map(|&b| Dfs::with_budget(board, &knight, &req, b))
                .collect();
            assert!(
                cut[0].depth() == 0 && full.depth() > cut[1].depth(),
                "{name}"
            );
            let total = full.total();
            assert!(cut.iter().all(|d| d.total() == total), "{name}");
            // every rank, or some spread over the range (the plain descent is slow on 6x6)
            let step = (total / ranks.min(total)).max(1);
            for r in (0..total).step_by(step as usize).map(|r| r + step / 3) {
                let plain = cut[0].unrank(r);
                assert_eq!(full.unrank(r), plain, "{name} rank {r}");
                for d in &cut[1..] {
                    assert_eq!(d.unrank(r), plain, "{name} rank {r}, depth {}", d.depth());
                }
            }
        }
    }
}
