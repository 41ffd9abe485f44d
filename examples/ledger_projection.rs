//! How well the pieces left of a ledger can be projected from the pieces counted:
//! `cargo run --release --example ledger_projection [DIR] [DRAWS] [SHARDS]` (default
//! `results/open8`, 20,000 draws, 16 shards).
//!
//! Three studies, all over the records that carry CPU time (the truth each projection is held
//! against is their own sum, so nothing outside the ledger is assumed):
//!
//! 1. **As the ledger grew.** Pieces are counted in order of their number; after the first N of
//!    them, `knights status` projects the rest. Each row compares the projection by class (each
//!    piece left at the mean CPU time of the counted pieces of its class: how many of its digits
//!    are 1, [`knights::frontier::piece_classes`]) and the plain mean a piece with the CPU time
//!    the rest then took.
//! 2. **Pieces drawn at random.** A projection of the whole count from a sample counted first:
//!    a plain draw of n pieces, or a draw of k pieces of each class (every class of the cut,
//!    the largest included, each projected at its sample's mean). For each plan, DRAWS samples
//!    (a fixed seed): the spread of projection / truth, the share within a factor of 2, and the
//!    CPU the sample itself costs.
//! 3. **Shards.** The CPU time each shard of a run cut into SHARDS (`--shard K/SHARDS`) would
//!    take, from the records of its pieces (a shard counts one run of the tree's nodes): what a
//!    cluster job of that many nodes waits for.

use std::collections::BTreeMap;
use std::path::PathBuf;

use knights::count::folder;
use knights::frontier::{by_class, tree_order};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "results/open8".into()));
    let draws: usize = args
        .next()
        .map_or(20_000, |a| a.parse().expect("a number of draws"));
    let shards: usize = args
        .next()
        .map_or(16, |a| a.parse().expect("a number of shards"));
    let status = match folder::status(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ledger_projection: {e}");
            std::process::exit(2);
        }
    };
    let Some(classes) = status.classes.clone() else {
        eprintln!(
            "ledger_projection: '{}' is not a digit tree's ledger (no classes)",
            dir.display()
        );
        std::process::exit(2);
    };
    let cpu = &status.cpu;
    let truth: f64 = cpu.values().sum();
    println!(
        "{}: {} records with CPU time, {:.2} hours of CPU in all; {} pieces of the cut\n",
        dir.display(),
        cpu.len(),
        truth / 3600.0,
        classes.len()
    );
    as_it_grew(cpu, &classes);
    drawn(cpu, &classes, draws);
    by_shard(cpu, &status.done, classes.len(), shards);
}

/// Study 3: each shard's CPU time, from the records of its pieces (the ledger's pieces are
/// the tree's nodes in order, one shard's numbering).
fn by_shard(
    cpu: &BTreeMap<usize, f64>,
    done: &std::collections::BTreeSet<usize>,
    pieces: usize,
    shards: usize,
) {
    let mut runs: Vec<Vec<u64>> = vec![Vec::new(); shards];
    for (i, &node) in tree_order(pieces, shards).iter().enumerate() {
        runs[i % shards].push(node);
    }
    println!("| shard (of {shards}) | nodes | CPU (h) | pieces without figures |");
    println!("|---:|---|---:|---:|");
    for (k, nodes) in runs.iter().enumerate() {
        // (+ 0.0: an empty sum of floats is -0.0)
        let secs = nodes
            .iter()
            .filter_map(|n| cpu.get(&(*n as usize)))
            .sum::<f64>()
            + 0.0;
        let missing = nodes
            .iter()
            .filter(|n| !cpu.contains_key(&(**n as usize)))
            .count();
        let left = nodes
            .iter()
            .filter(|n| !done.contains(&(**n as usize)))
            .count();
        let span = match (nodes.first(), nodes.last()) {
            (Some(a), Some(b)) => format!("{a} to {b}"),
            _ => "none".into(),
        };
        println!(
            "| {k} | {span} | {:.2} | {missing}{} |",
            secs / 3600.0,
            if left > 0 {
                format!(" ({left} not counted yet)")
            } else {
                String::new()
            }
        );
    }
}

/// Study 1: the projection of the rest after the first `n` records, for n in steps.
fn as_it_grew(cpu: &BTreeMap<usize, f64>, classes: &[u8]) {
    println!(
        "| records counted | pieces left | by class (h) | plain mean (h) | took (h) | by class / took | plain / took |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let pieces: Vec<usize> = cpu.keys().copied().collect();
    let step = (pieces.len() / 8).max(1);
    for n in (step..pieces.len()).step_by(step) {
        let before: BTreeMap<usize, f64> = pieces[..n].iter().map(|p| (*p, cpu[p])).collect();
        let after = &pieces[n..];
        let took: f64 = after.iter().map(|p| cpu[p]).sum();
        let (class, _) = by_class(&before, classes, after.iter().copied()).expect("records");
        let plain = before.values().sum::<f64>() / n as f64 * after.len() as f64;
        println!(
            "| {n} (to piece {}) | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            pieces[n - 1],
            after.len(),
            class / 3600.0,
            plain / 3600.0,
            took / 3600.0,
            class / took,
            plain / took
        );
    }
    println!();
}

/// The CPU seconds of pieces, by class.
type ByClass = BTreeMap<u8, Vec<f64>>;

/// A sample's name, how many of each class it draws and from which pieces (or none: a plain
/// draw), and a plain draw's size.
type Plan<'a> = (String, Option<(usize, &'a ByClass)>, usize);

/// Study 2: projections of the whole from samples drawn at random.
fn drawn(cpu: &BTreeMap<usize, f64>, classes: &[u8], draws: usize) {
    let truth: f64 = cpu.values().sum();
    let mut by: ByClass = BTreeMap::new();
    for (&p, &c) in cpu {
        by.entry(classes[p]).or_default().push(c);
    }
    // the count's own draw: classes 1 and up under the first digit 1, class 0 from the others
    // (one shard: piece p is node p of a tree of depth log3(pieces))
    let top = (classes.len() / 3).max(1);
    let mut home: ByClass = BTreeMap::new();
    for (&p, &c) in cpu {
        if (classes[p] == 0) != (p / top == 1) {
            home.entry(classes[p]).or_default().push(c);
        }
    }
    let all: Vec<f64> = cpu.values().copied().collect();
    let mut rng = fastrand::Rng::with_seed(2026);
    println!(
        "| sample | pieces | projection / truth: 5 % | median | 95 % | within 2× | the sample's CPU (h, mean) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let plans: Vec<Plan> = vec![
        ("12 drawn from all".into(), None, 12),
        ("24 drawn from all".into(), None, 24),
        ("1 of each class".into(), Some((1, &by)), 0),
        (
            "1 of each class, under the first digit 1 (class 0 elsewhere), as the count draws"
                .into(),
            Some((1, &home)),
            0,
        ),
        ("2 of each class".into(), Some((2, &by)), 0),
        ("3 of each class".into(), Some((3, &by)), 0),
    ];
    for (name, per_class, plain) in plans {
        let mut ratios = Vec::with_capacity(draws);
        let (mut cost, mut size) = (0.0, 0);
        for _ in 0..draws {
            let (est, spent, n) = match per_class {
                None => {
                    let s = sample(&mut rng, &all, plain);
                    let sum: f64 = s.iter().sum();
                    (sum / s.len() as f64 * all.len() as f64, sum, s.len())
                }
                Some((k, pools)) => by.iter().fold((0.0, 0.0, 0), |(e, c, n), (class, v)| {
                    let s = sample(&mut rng, pools.get(class).unwrap_or(v), k);
                    let sum: f64 = s.iter().sum();
                    (
                        e + sum / s.len() as f64 * v.len() as f64,
                        c + sum,
                        n + s.len(),
                    )
                }),
            };
            ratios.push(est / truth);
            cost += spent;
            size = n;
        }
        ratios.sort_by(f64::total_cmp);
        let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
        let within = ratios.iter().filter(|&&r| (0.5..=2.0).contains(&r)).count();
        println!(
            "| {name} | {size} | {:.2} | {:.2} | {:.2} | {:.1} % | {:.2} |",
            q(0.05),
            q(0.5),
            q(0.95),
            100.0 * within as f64 / ratios.len() as f64,
            cost / draws as f64 / 3600.0
        );
    }
}

/// `k` of `v` drawn without replacement (all of them where `v` has no more).
fn sample(rng: &mut fastrand::Rng, v: &[f64], k: usize) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    rng.shuffle(&mut idx);
    idx.iter().take(k.min(v.len())).map(|&i| v[i]).collect()
}
