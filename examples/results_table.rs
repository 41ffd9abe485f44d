//! Writes `results/counts.md` and `results/counts.csv`: for every board R×C with 3 <= R <= C and
//! R·C <= 40, open and closed, the exact count, the DFS time on 1 and 2 threads, and the naive
//! engine's time where it finishes within a cap. Every count is checked: 1 thread = 2 threads,
//! DFS = naive where naive ran, and DFS = the known value of `tests/data/counts.tsv` where listed.
//!
//! Run with `cargo run --release --example results_table` (optionally `-- --naive-cap SECONDS`).
//! The naive engine runs in a child process (this program, `--naive R C open|closed`) that is
//! killed at the cap, so a runaway count neither blocks the table nor steals a core afterwards.

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use knights::bench::known;
use knights::count::{self, CountSpec, Engine, naive};
use knights::{Board, Piece, Square};

fn spec(closed: bool) -> CountSpec {
    CountSpec {
        closed,
        symmetry: true,
        ..CountSpec::default()
    }
}

/// The reported figure: directed open tours, or undirected closed tours.
fn figure(c: &count::Count, closed: bool) -> u64 {
    let n = if closed { &c.undirected } else { &c.directed };
    u64::try_from(n).expect("counts of boards of up to 40 squares fit a u64")
}

/// Best of a few runs on a pool of `threads` (more runs when a run is short); also whether a
/// theorem settled the count.
fn time_dfs(b: Board, closed: bool, threads: usize) -> (u64, f64, bool) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let k = Piece::knight();
    let mut best = f64::INFINITY;
    let mut value = None;
    let mut runs = 0;
    let mut theorem = false;
    while runs < 3 && (runs == 0 || best < 0.5) {
        let t = Instant::now();
        let c = pool
            .install(|| count::count(b, &k, &spec(closed), Engine::Dfs))
            .expect("a count");
        best = best.min(t.elapsed().as_secs_f64());
        let v = figure(&c, closed);
        theorem = c.reason.is_some();
        assert!(value.is_none_or(|old| old == v), "{b}: runs disagree");
        value = Some(v);
        runs += 1;
    }
    (value.expect("one run"), best, theorem)
}

/// The naive count in a child process, killed after `cap`; `None` when it did not finish.
fn time_naive(b: Board, closed: bool, cap: Duration) -> Option<(u64, f64)> {
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .args([
            "--naive",
            &b.rows.to_string(),
            &b.cols.to_string(),
            if closed { "closed" } else { "open" },
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the naive child");
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "{b}: the naive child failed");
            let out = std::io::read_to_string(child.stdout.take().expect("stdout")).expect("read");
            let mut it = out.split_whitespace();
            let v = it.next().expect("count").parse().expect("a number");
            let s = it.next().expect("seconds").parse().expect("a number");
            return Some((v, s));
        }
        if t.elapsed() > cap {
            child.kill().expect("kill");
            child.wait().expect("reap");
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The child: one naive count, printed as `COUNT SECONDS`. It calls the backtracker directly,
/// not through `count::count`, so no existence theorem short-cuts it: the zeros are searched too.
fn naive_child(rows: &str, cols: &str, kind: &str) {
    let b = Board::new(rows.parse().expect("rows"), cols.parse().expect("cols")).expect("a board");
    let k = Piece::knight();
    let t = Instant::now();
    let v = if kind == "closed" {
        // from a1 each cycle is found once in each direction
        naive::count_from(b, &k, Square::new(0, 0), true, None) / 2
    } else {
        naive::count_open_all(b, &k, None)
    };
    println!("{v} {}", t.elapsed().as_secs_f64());
}

fn secs(s: f64) -> String {
    if s < 0.001 {
        format!("{:.0} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--naive" {
        naive_child(&args[2], &args[3], &args[4]);
        return;
    }
    let cap_s: f64 = match args.iter().position(|a| a == "--naive-cap") {
        Some(i) => args[i + 1].parse().expect("--naive-cap SECONDS"),
        None => 20.0,
    };
    let cap = Duration::from_secs_f64(cap_s);
    let mut boards = Vec::new();
    for r in 3..=40u32 {
        for c in r..=40 / r {
            boards.push(Board::new(r, c).expect("a board"));
        }
    }
    let mut md = String::new();
    let mut csv = String::from(
        "board,kind,figure,count,known,dfs_1t_s,dfs_2t_s,naive_s,dfs_vs_naive,scaling_1t_to_2t\n",
    );
    let _ = writeln!(md, "# Exact counts and timings, 3 <= R <= C, R·C <= 40\n");
    let _ = writeln!(
        md,
        "Reproduce: `cargo run --release --example results_table` (writes this file and `results/counts.csv`).\n"
    );
    let _ = writeln!(
        md,
        "Open: directed open tours (every start, both directions). Closed: undirected cycles. Times are the\n\
         best of up to three in-process runs on a rayon pool of 1 or 2 threads (one run when a run takes\n\
         0.5 s or more). Naive: plain backtracking on one thread in a child process, capped at {cap_s} s\n\
         (\"—\" = did not finish within the cap). The naive child calls the backtracker directly, so it\n\
         searches the boards the existence theorems settle too (and confirms their zeros); the DFS\n\
         engine answers those from the theorem (\"theorem\" in the speedup column) without a search.\n\
         Speedup = naive time / DFS 1-thread time; scaling = DFS 1-thread / 2-thread time.\n\
         Checks: 1 thread = 2 threads; DFS = naive wherever naive ran; DFS = the known value (`tests/data/counts.tsv`)\n\
         where one is listed (✓ in the known column).\n"
    );
    let _ = writeln!(
        md,
        "| board | kind | count | known | DFS 1 thread | DFS 2 threads | naive | speedup vs naive | 1→2 threads |"
    );
    let _ = writeln!(md, "|---|---|---:|:---:|---:|---:|---:|---:|---:|");
    let total = Instant::now();
    for &b in &boards {
        for closed in [false, true] {
            let kind = if closed { "closed" } else { "open" };
            let (v1, t1, theorem) = time_dfs(b, closed, 1);
            let (v2, t2, _) = time_dfs(b, closed, 2);
            assert_eq!(v1, v2, "{b} {kind}: 1 and 2 threads disagree");
            // the published value, as the bench reads it from tests/data/counts.tsv
            let k = known::count(b, closed).map(|n| u64::try_from(n).expect("a count in u64"));
            if let Some(k) = k {
                assert_eq!(v1, k, "{b} {kind}: the DFS disagrees with the known value");
            }
            let naive = time_naive(b, closed, cap);
            if let Some((nv, _)) = naive {
                assert_eq!(
                    v1, nv,
                    "{b} {kind}: the DFS disagrees with the naive engine"
                );
            }
            let speed = naive.filter(|_| !theorem).map(|(_, tn)| tn / t1);
            let scaling = t1 / t2;
            let _ = writeln!(
                md,
                "| {b} | {kind} | {v1} | {} | {} | {} | {} | {} | {:.2}× |",
                if k.is_some() { "✓" } else { "" },
                secs(t1),
                secs(t2),
                naive.map_or("—".to_string(), |(_, tn)| secs(tn)),
                match (theorem, speed) {
                    (true, _) => "theorem".to_string(),
                    (false, Some(s)) => format!("{s:.0}×"),
                    (false, None) => "—".to_string(),
                },
                scaling
            );
            let _ = writeln!(
                csv,
                "{b},{kind},{},{v1},{},{t1:.6},{t2:.6},{},{},{scaling:.3}",
                if closed { "undirected" } else { "directed" },
                k.map_or(String::new(), |k| k.to_string()),
                naive.map_or(String::new(), |(_, tn)| format!("{tn:.6}")),
                speed.map_or(String::new(), |s| format!("{s:.1}")),
            );
            eprintln!(
                "{b} {kind}: {v1} ({}, naive {:?})",
                secs(t1),
                naive.map(|n| n.1)
            );
        }
    }
    let _ = writeln!(
        md,
        "\nTotal time to produce this table: {:.0} s.",
        total.elapsed().as_secs_f64()
    );
    std::fs::create_dir_all("results").expect("results/");
    std::fs::write("results/counts.md", md).expect("write results/counts.md");
    std::fs::write("results/counts.csv", csv).expect("write results/counts.csv");
}
