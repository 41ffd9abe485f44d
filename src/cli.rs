//! Command-line arguments (clap derive); the doc comments are the help text.
//!
//! The definition lives in the library, not the binary, so that the tests, the shell completions
//! and the manual page all read the one [`Cli`] the program parses ([`definition`]).

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::bench::Suite;
use crate::board::parse_square_unchecked;
use crate::count::Shard;
use crate::find::Strategy;
use crate::heuristics::Heuristic;
use crate::list::{Filter, Property};
use crate::render::Format;
use crate::render::colour::ColorChoice;
use crate::sample::Method as SampleMethod;
use crate::{Board, Piece, Square};

/// The whole definition, every subcommand's arguments built: for what reads it rather than
/// parses with it (the shell completions, the manual page, the tests). [`Cli::command`] alone
/// leaves each subcommand's arguments unbuilt until it runs (see [`Command`]).
#[must_use]
pub fn definition() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.build();
    cmd
}

/// The version `--version` prints: the crate's, and the git commit it was built from where
/// the build could ask git (see `build.rs`).
pub const VERSION: &str = env!("KNIGHTS_VERSION");

/// Knight's tours and their relatives: find, verify and count tours on any board.
#[derive(Debug, Parser)]
#[command(name = "knights", version = VERSION, about, propagate_version = true)]
pub struct Cli {
    /// Colour the grid's start and end squares: on a terminal unless NO_COLOR is set (auto),
    /// always, or never. Never in a pipe with auto.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands. Each one's arguments are built only when it is the one run (`defer`):
/// building all thirteen took a tenth of the time of `knights count 3x4`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Find one tour (open by default) and print it, verified.
    Tour(TourArgs),
    /// Check a tour given as a grid, moves or JSON; exit 1 when it is invalid.
    Verify(VerifyArgs),
    /// Count every open or closed tour exactly (DFS up to 64 squares, frontier engine beyond).
    Count(CountArgs),
    /// Put the checkpoints of the shards of one count together and print its total.
    Merge(MergeArgs),
    /// What a checkpoint holds: the run, its progress, when it was last written, whether a
    /// process is counting it now, and the time left.
    Status(StatusArgs),
    /// The shortest path from a square that visits every listed square (revisits allowed).
    Hunt(HuntArgs),
    /// Run one heuristic without backtracking from every start square and report what it finds,
    /// or (--from) show its one walk from a square, square by square.
    Survey(SurveyArgs),
    /// Estimate the number of tours by random probes, with a 95 % interval (boards of up to 64
    /// squares).
    Estimate(EstimateArgs),
    /// Draw random tours, each verified: exactly uniform where the tours can be counted, from a
    /// Markov chain (approximately uniform) beyond.
    Sample(SampleArgs),
    /// List every tour exactly once, each checked (open: directed; closed: one per cycle), or
    /// count a property over them (--histogram); boards of up to 64 squares.
    List(ListArgs),
    /// Read sets of tours (JSON lines or move lists, as sample, list and tour print them), check
    /// each, and report how often each move is used, straight moves and crossings; files after
    /// the first are measured against it, and --svg draws the heat maps.
    Tally(TallyArgs),
    /// Time a fixed suite of counts and tour searches, each solver side by side with naive
    /// backtracking; every answer is checked before its time is shown.
    Bench(BenchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on standard output.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on standard output, or write one page a subcommand to a
    /// folder.
    Manpage(ManpageArgs),
}

// Options every subcommand shares: the piece. (Not a doc comment: clap would take it for the
// `about` of each subcommand that flattens it, which it builds after the subcommand's own.)
#[derive(Debug, Args)]
pub struct PieceArg {
    /// The piece: knight, camel, zebra, giraffe, any leaper A,B (steps 0 <= A,B <= 64, not both
    /// 0), or a union such as 3,0+2,2.
    #[arg(long, short = 'p', default_value = "knight", value_parser = parse_piece, allow_hyphen_values = true)]
    pub piece: Piece,
}

#[derive(Debug, Args)]
pub struct TourArgs {
    /// The board, ROWSxCOLS (e.g. 8x8, 3x10, 100x100).
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// Start square: algebraic (a1, aa10) or COL,RANK (1-based). Default a1.
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Option<Square>,
    /// Find a closed tour (the last square is one move from the first).
    #[arg(long, short = 'c')]
    pub closed: bool,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Seed for the randomised tie-breaks and restarts; the same seed gives the same tour.
    #[arg(long, short = 's', default_value_t = 0, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Grid)]
    pub format: Format,
    /// How to make the tour: the linear-time construction where it applies (auto), only the
    /// construction, or only one of the searches.
    #[arg(long, value_enum, default_value_t = Strategy::Auto)]
    pub method: Strategy,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// File holding the tour, or - (the default) for standard input.
    #[arg(default_value = "-")]
    pub file: PathBuf,
    #[command(flatten)]
    pub reading: TourReading,
    /// Require a closed tour.
    #[arg(long, short = 'c')]
    pub closed: bool,
}

// How a tour's text is read (`verify`, `tally`): the board a moves list is on, and the piece
// its moves are checked as. (Not a doc comment: clap would take it for the help's opening line
// of the subcommands that flatten it.)
#[derive(Debug, Args)]
#[allow(missing_docs)]
pub struct TourReading {
    /// The board (needed only for a moves list that does not reach the last rank and file).
    #[arg(long, short = 'b', value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Option<Board>,
    /// The piece to check the moves of: knight, camel, zebra, giraffe, any leaper A,B (steps
    /// 0 <= A,B <= 64, not both 0), or a union such as 3,0+2,2. Default: the piece the tour
    /// names (JSON "piece", a grid's summary line), else the knight.
    #[arg(long, short = 'p', value_parser = parse_piece, allow_hyphen_values = true)]
    pub piece: Option<Piece>,
}

#[derive(Debug, Args)]
pub struct TallyArgs {
    /// Files of tours, one a line: JSON lines or move lists (a closed tour's list repeats its
    /// first square at the end), as `sample`, `list` and `tour` print them; - for standard input.
    /// The first file is the reference the others are measured against.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub reading: TourReading,
    /// Closed tours: every tour must close, and is tallied with the move back to its start (a
    /// move list is read as closed only where it repeats its first square, or with this).
    #[arg(long, short = 'c')]
    pub closed: bool,
    /// Write the heat maps of the moves used (one board a file, then each file's difference
    /// from the first) to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TallyFormat::Text)]
    pub format: TallyFormat,
    /// How many of the moves that differ most from the first file's to name, a file.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,
}

/// How `tally` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TallyFormat {
    /// A table of the statistics and, for each file after the first, its difference.
    Text,
    /// One JSON object: each file's statistics, its share of every move and its difference.
    Json,
}

/// Which counter to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The DFS where its search tree is small, the frontier engine otherwise.
    Auto,
    /// The bitboard DFS with pruning, memo, symmetry and work stealing (up to 64 squares).
    Dfs,
    /// Dynamic programming over a moving frontier (any length, short side up to about 8).
    Frontier,
    /// Plain textbook backtracking (boards of up to 36 squares), for comparison.
    Naive,
}

/// Which way the frontier engine walks the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WindowArg {
    /// Along the long side, the window across the short one.
    Narrow,
    /// Along the short side, the window across the long one.
    Wide,
}

/// The order the frontier engine takes a column's squares in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    /// Each column from its first square to its last, as counts before the tuned orders did.
    Straight,
    /// The order measured to hold the fewest states (the knight's boards 3 to 8 wide).
    Tuned,
}

impl From<OrderArg> for crate::engine::Order {
    fn from(a: OrderArg) -> Self {
        match a {
            OrderArg::Straight => crate::engine::Order::Straight,
            OrderArg::Tuned => crate::engine::Order::Tuned,
        }
    }
}

/// How a row walks the columns where its states have saturated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SaturatedArg {
    /// Compiled once into sums over the states (no rules or hashing in the columns after).
    Sums,
    /// Every step walked as the steps before saturation are (for checks and comparison).
    Steps,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The board, ROWSxCOLS (e.g. 6x6, 7x7, 3x100): up to 64 squares for the dfs engine, any
    /// length with a short side up to about 8 for the frontier engine.
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// Count closed tours (undirected cycles) instead of open ones.
    #[arg(long, short = 'c')]
    pub closed: bool,
    /// Only tours starting on this square.
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Option<Square>,
    /// Only tours ending on this square.
    #[arg(long, short = 't', value_parser = parse_square, allow_hyphen_values = true)]
    pub to: Option<Square>,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Worker threads (default: every core; at most 4 per core, or 64 where that is more).
    #[arg(long, short = 'j', value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<NonZeroUsize>,
    /// Which counter runs.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also print the directed open count from every start square.
    #[arg(long)]
    pub per_square: bool,
    /// Search every start square instead of one per symmetry orbit (a cross-check).
    #[arg(long)]
    pub no_symmetry: bool,
    /// The frontier engine's window: `narrow` walks the long side with a window across the
    /// short one (always the faster); `wide` walks the short side with a window across the long
    /// one, a second way to the same count (for checks: 8x5 wide runs the 8-wide engine).
    #[arg(long, value_enum, default_value_t = WindowArg::Narrow)]
    pub window: WindowArg,
    /// The order the frontier engine takes each column's squares in: `tuned` holds a half to a
    /// third as many states in the middle of a column as `straight`, which walks each column
    /// from its first square to its last (the same count either way). Given neither, a count
    /// goes on in the order its checkpoint, ledger or saved sweep was made in, and a new one is
    /// tuned.
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// With --lengths: how the sweep walks the columns where its states have stopped changing
    /// (the same states at the same place of every column, as in the middle of a long board):
    /// `sums` compiles a period of steps once and walks the columns after by sums over the
    /// states, `steps` walks each step as before (the same counts either way). [default: sums]
    #[arg(long, value_enum, requires = "lengths")]
    pub saturated: Option<SaturatedArg>,
    /// Start even when the estimate says the count is out of reach (over 30 days, or frontier
    /// tables past --max-memory).
    #[arg(long)]
    pub force: bool,
    /// Record counted work units in FILE and resume from it: run the same command again after an
    /// interruption and the count goes on where it stopped.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Keep each finished piece also in the folder DIR, one small file a piece with how it was
    /// counted, and count only the pieces no file there holds: a ledger that runs on any number
    /// of machines add to (`knights merge DIR/*` puts it together, `knights status DIR` says
    /// what is left).
    #[arg(long, value_name = "DIR")]
    pub ledger: Option<PathBuf>,
    /// Count only these pieces of the cut, e.g. 17 or 3,17,40 (numbered from 0, as checkpoint
    /// and ledger records name them): to count a piece again and compare it with its record.
    #[arg(long, value_name = "K,...", value_delimiter = ',', num_args = 1)]
    pub only: Option<Vec<usize>>,
    /// Count only shard K of N: the pieces (the DFS's work units, the frontier engine's pieces)
    /// whose number is K modulo N (0 <= K < N). Put the shards' checkpoints together with
    /// `knights merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, allow_hyphen_values = true)]
    pub shard: Option<Shard>,
    /// Progress on standard error: a bar on a terminal (auto), a bar, a line every few seconds
    /// (plain, for logs), or none.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// No progress display (same as --progress none).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The most memory the count may take, e.g. 8G, 512M or 2GiB (default: three quarters of
    /// the machine's memory). The frontier engine keeps half of it for its tables and sends
    /// what passes that to disk (--scratch), so a smaller bound costs time and disk; a piece
    /// whose tables do not fit even so is left for a larger bound, and said so (with
    /// --checkpoint the other pieces are counted and kept).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    /// The folder where the frontier engine's tables go when they pass the memory bound
    /// (default: the checkpoint's folder, else the system's temporary folder). Its free space
    /// is checked as the count starts; its files are removed as the count ends.
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// Count every length of the row at once: the boards ROWSx1 to ROWSxCOLS (or FIRST..LAST
    /// of them), in one sweep along the longest, each printed as its column closes (a table, or
    /// with --json one JSON object a length). With --checkpoint the lengths counted and the
    /// sweep's work in progress are kept, and the same command goes on from them.
    #[arg(
        long,
        value_name = "FIRST..LAST",
        value_parser = crate::count::row::parse_lengths,
        conflicts_with_all = ["from", "to", "per_square", "no_symmetry", "window", "ledger", "only", "shard", "split"],
        allow_hyphen_values = true
    )]
    pub lengths: Option<std::ops::RangeInclusive<u32>>,
    /// With --lengths: draw the counts' growth, one point a length on a log scale, as an SVG
    /// picture in FILE.
    #[arg(long, value_name = "FILE.svg", requires = "lengths")]
    pub plot: Option<PathBuf>,
    /// Keep the work every piece of a frontier count shares (the walk to the middle) in FILE, for
    /// all the shards of a run: the first shard to get there makes it, the others wait and read
    /// it (default: beside the checkpoint, for this process alone).
    #[arg(long, value_name = "FILE")]
    pub split: Option<PathBuf>,
}

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// A bar when standard error is a terminal, nothing otherwise.
    Auto,
    /// A bar (indicatif still hides it when standard error is not a terminal).
    Bar,
    /// A line every few seconds.
    Plain,
    /// Nothing.
    None,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Checkpoint files written by `knights count --shard K/N --checkpoint FILE`.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// A checkpoint given to `knights count --checkpoint FILE` (of any engine or shard; the
    /// frontier engine's saved layers beside it are read too), or a ledger folder given to
    /// `knights count --ledger DIR`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HuntArgs {
    /// The board, ROWSxCOLS.
    #[arg(value_parser = parse_board, default_value = "8x8", allow_hyphen_values = true)]
    pub board: Board,
    /// Start square: algebraic (a8) or COL,RANK (1-based).
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Square,
    /// The squares to visit, in any order: algebraic squares separated by commas or spaces
    /// (e6,c4,b3), or COL,RANK squares separated by spaces or semicolons ("5,6;3,4"); the option
    /// may be repeated. At most 20.
    #[arg(long, short = 'v', required = true, value_name = "SQ,SQ,...", value_parser = parse_square_list, action = clap::ArgAction::Append, allow_hyphen_values = true)]
    pub visit: Vec<SquareList>,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = HuntFormat::Moves)]
    pub format: HuntFormat,
}

/// How a hunt is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HuntFormat {
    /// The squares in order, then a summary line.
    Moves,
    /// The board with the move numbers and the targets' order, then a summary line.
    Grid,
    /// One JSON object: moves, path and targets (in the order reached) as [row, col].
    Json,
    /// An SVG picture of the path with the targets numbered.
    Svg,
}

#[derive(Debug, Args)]
pub struct SurveyArgs {
    /// The board, ROWSxCOLS.
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// The heuristic: warnsdorff (fewest onward moves, ties in a fixed move order), random
    /// (ties at random), pohl, roth, squirrel-cull (their tie-breaks), lookahead1, lookahead2
    /// (ties by looking one or two moves further), naive (plain backtracking), or all of them in
    /// one table.
    #[arg(long, short = 'H', default_value = "warnsdorff", value_parser = heuristic_names())]
    pub heuristic: String,
    /// Count only closed tours as found (backtracking then looks for closed tours).
    #[arg(long, short = 'c')]
    pub closed: bool,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Seed of the random tie-breaks and of the --starts sample.
    #[arg(long, short = 's', default_value_t = 0, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// Survey N start squares drawn at random instead of every square (large boards).
    #[arg(long, value_name = "N", value_parser = parse_starts, allow_hyphen_values = true)]
    pub starts: Option<u64>,
    /// Node budget of the naive backtracking per start square.
    #[arg(long, value_name = "NODES", default_value_t = crate::survey::DEFAULT_BUDGET, value_parser = parse_budget, allow_hyphen_values = true)]
    pub budget: u64,
    /// Run the one walk from this square and print it, numbered square by square, complete or
    /// not (exit 1 when it stops short).
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true, conflicts_with_all = ["starts", "csv"])]
    pub from: Option<Square>,
    /// Print one JSON object instead of text.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV rows, one per start square.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// The board, ROWSxCOLS, of at most 64 squares (e.g. 8x8, 7x9).
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// Estimate closed tours (undirected cycles) instead of open ones.
    #[arg(long, short = 'c')]
    pub closed: bool,
    /// Only tours starting on this square.
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Option<Square>,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Random probes: more narrow the interval (its width shrinks as 1/sqrt(probes)).
    #[arg(long, short = 'n', default_value_t = crate::estimate::DEFAULT_PROBES, value_parser = parse_probes, allow_hyphen_values = true)]
    pub probes: u64,
    /// Seed of the probes' random choices; the same seed gives the same estimate.
    #[arg(long, short = 's', default_value_t = 0, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// Worker threads (default: every core; at most 4 per core, or 64 where that is more); the
    /// estimate does not depend on it.
    #[arg(long, short = 'j', value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<NonZeroUsize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How sampled tours are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SampleFormat {
    /// Numbered boards separated by a blank line.
    Grid,
    /// One tour a line: algebraic squares separated by spaces.
    Moves,
    /// JSON Lines: one tour object a line, with the method and whether it is exactly uniform.
    Json,
    /// Only the summary line (for timing).
    None,
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The board, ROWSxCOLS (e.g. 6x6, 3x40, 8x8).
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// Tours to draw.
    #[arg(short = 'n', long = "number", value_name = "N", default_value_t = 1, value_parser = parse_positive, allow_hyphen_values = true)]
    pub number: u64,
    /// Closed tours (undirected cycles, each printed from --from or a1 in a random direction).
    #[arg(long, short = 'c')]
    pub closed: bool,
    /// Only tours starting on this square (closed tours: printed from it).
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Option<Square>,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Seed of the random draws; the same seed gives the same tours on any number of threads.
    #[arg(long, short = 's', default_value_t = 0, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// exact: every tour equally likely, from the counting tables (exit 2 where they are out of
    /// reach); chain: the backbite Markov chain (approximately uniform); auto: exact where the
    /// tables fit, the chain otherwise.
    #[arg(long, value_enum, default_value_t = SampleMethod::Auto)]
    pub method: SampleMethod,
    /// Exact: which tables the tours are drawn from: search (the counting search's, boards of
    /// up to 64 squares), layers (the frontier engine's plain layers), meet (inside the frontier
    /// count met in the middle, the leaves a batch lands in made again), or auto (the first of
    /// these that fits the board, the bound and the time).
    #[arg(long, value_enum, default_value_t = crate::sample::Tables::Auto)]
    pub tables: crate::sample::Tables,
    /// Exact, by way of the ledger of a count met in the middle (`count --ledger DIR`, every
    /// piece recorded): each tour's piece drawn by its record, and each batch counts again the
    /// pieces it lands in, checked against their records (8x8 open: `--ledger results/open8`).
    /// The projected cost of each batch is said before it starts.
    #[arg(long, value_name = "DIR")]
    pub ledger: Option<PathBuf>,
    /// Exact, inside the count met in the middle: the count's leaves (each with its count) are
    /// read from FILE where it exists, so the count is not made again; where it does not, the
    /// count is made and its leaves written there for the next run (a damaged file, or one of
    /// another board, piece or kind, is refused).
    #[arg(long, value_name = "FILE")]
    pub leaves: Option<PathBuf>,
    /// Exact, inside the count met in the middle: the right half's nodes of the count's digit
    /// tree are kept in DIR (made once, those it lacks, as the run starts) and every batch reads
    /// the ones it needs instead of making them again; with --leaves, a later run of 200 8x8
    /// closed tours takes half the time. 8x8 closed: about 9 GB.
    #[arg(long, value_name = "DIR")]
    pub nodes: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SampleFormat::Grid)]
    pub format: SampleFormat,
    /// Worker threads (default: every core); the tours do not depend on it.
    #[arg(long, short = 'j', value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<NonZeroUsize>,
    /// The most memory the exact sampler's tables may take, e.g. 8G or 512M (default: three
    /// quarters of the machine's memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, allow_hyphen_values = true)]
    pub max_memory: Option<u64>,
    /// Exact: the folder where the sampler's tables go when they pass a part of the memory
    /// bound (default: the system's temporary folder, which may be memory itself where /tmp is
    /// a memory file system). Its files are removed as the run ends.
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// Chain: moves between two samples (closed tours: closable paths visited); default 32 a
    /// square (open, at most 65,536), 2 a square (closed).
    #[arg(long, value_name = "MOVES", value_parser = parse_moves, allow_hyphen_values = true)]
    pub thin: Option<u64>,
    /// Chain: moves before the first sample, in the same units; default 20 times the thinning.
    #[arg(long, value_name = "MOVES", value_parser = parse_burn_in, allow_hyphen_values = true)]
    pub burn_in: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The board, ROWSxCOLS, of at most 64 squares (e.g. 5x5, 6x6, 3x12).
    #[arg(value_parser = parse_board, allow_hyphen_values = true)]
    pub board: Board,
    /// List closed tours, one per undirected cycle (read from --from, else a1), instead of
    /// directed open tours.
    #[arg(long, short = 'c')]
    pub closed: bool,
    /// Only tours starting on this square (closed tours: read from it).
    #[arg(long, short = 'f', value_parser = parse_square, allow_hyphen_values = true)]
    pub from: Option<Square>,
    /// Only tours ending on this square.
    #[arg(long, short = 't', value_parser = parse_square, allow_hyphen_values = true)]
    pub to: Option<Square>,
    #[command(flatten)]
    pub piece: PieceArg,
    /// Stop after N tours.
    #[arg(long, short = 'n', value_name = "N", value_parser = parse_positive, allow_hyphen_values = true)]
    pub limit: Option<u64>,
    /// Output format (default moves; none with --histogram).
    #[arg(long, value_enum)]
    pub format: Option<ListFormat>,
    /// Worker threads (default: every core); the output does not depend on it.
    #[arg(long, short = 'j', value_parser = parse_threads, allow_hyphen_values = true)]
    pub threads: Option<NonZeroUsize>,
    /// Start even when the listing is estimated to take more than a day.
    #[arg(long)]
    pub force: bool,
    /// Only tours meeting COND: closable (open tours whose ends are a move apart), symmetric
    /// (mapped onto themselves by a rotation or reflection), straight=N (exactly N moves that
    /// continue in the direction of the move before). May be repeated: all must hold.
    #[arg(long = "where", value_name = "COND", value_parser = parse_filter, action = clap::ArgAction::Append, allow_hyphen_values = true)]
    pub filters: Vec<Filter>,
    /// Print the distribution of a property over the tours listed, as a table (the tours
    /// themselves are not printed: --format none).
    #[arg(long, value_enum, value_name = "PROPERTY")]
    pub histogram: Option<Property>,
    /// Print the histogram as one JSON object instead of a table.
    #[arg(long, requires = "histogram")]
    pub json: bool,
    /// Also draw the histogram as a bar chart in FILE, an SVG picture.
    #[arg(long, value_name = "FILE.svg", requires = "histogram")]
    pub plot: Option<PathBuf>,
}

/// How listed tours are printed.
pub type ListFormat = crate::list::Format;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The suite: quick (up to 3 runs a solver, counts stopped after 5 s; under a minute on two
    /// cores) or full (up to 5 runs, 60 s, a larger node budget and more items; several
    /// minutes).
    #[arg(long, value_enum, default_value_t = Suite::Quick)]
    pub suite: Suite,
    /// Threads of the parallel solvers (default: every core).
    #[arg(long, short = 'j', value_parser = parse_threads)]
    pub threads: Option<NonZeroUsize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
    /// Also draw the median times as a bar chart (log scale) in FILE, an SVG picture.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Run only the suite's items whose name contains TEXT (e.g. "6x6", "closed", "tours").
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Time fixed counts (the DFS on 6x6 open, 5x8 open and 6x8 closed, the frontier engine on
    /// 7x7 open and 8x8 closed; --suite full adds 6x9 closed through the wide window) on each of
    /// these thread counts, with the speedup and efficiency against one thread and a model's
    /// projected speedup; counts past this machine's cores are projected only (e.g. 1,2,4,16,64).
    #[arg(long, value_name = "N,...", conflicts_with = "threads")]
    pub scaling: Option<String>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How the bench report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    /// A table, one line a solver.
    Text,
    /// One JSON object with every run's time.
    Json,
    /// One row a solver and item.
    Csv,
    /// The table in Markdown.
    Markdown,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManpageArgs {
    /// Write knights.1 and a page for each subcommand (knights-tour.1, ...) into DIR instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The survey's heuristics by name, and `all`.
fn heuristic_names() -> clap::builder::PossibleValuesParser {
    let mut names: Vec<&'static str> = Heuristic::ALL.iter().map(|h| h.name()).collect();
    names.push("all");
    clap::builder::PossibleValuesParser::new(names)
}

fn parse_board(s: &str) -> Result<Board, String> {
    s.parse().map_err(|e: crate::Error| e.to_string())
}

/// Syntax only: whether the square is on the board is checked once the board is known.
fn parse_square(s: &str) -> Result<Square, String> {
    parse_square_unchecked(s).map_err(|e| e.to_string())
}

/// The squares of one `--visit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SquareList(pub Vec<Square>);

/// A list of squares: algebraic ones separated by commas or spaces, numeric `COL,RANK` ones by
/// spaces or semicolons (a chunk that is one whole square is taken as one).
fn parse_square_list(s: &str) -> Result<SquareList, String> {
    let mut out = Vec::new();
    for chunk in s.split(|c: char| c.is_whitespace() || c == ';') {
        if chunk.is_empty() {
            continue;
        }
        if let Ok(sq) = parse_square_unchecked(chunk) {
            out.push(sq);
            continue;
        }
        for part in chunk.split(',').filter(|p| !p.is_empty()) {
            out.push(parse_square(part)?);
        }
    }
    Ok(SquareList(out))
}

fn parse_piece(s: &str) -> Result<Piece, String> {
    s.parse().map_err(|e: crate::Error| e.to_string())
}

fn parse_filter(s: &str) -> Result<Filter, String> {
    s.parse()
        .map_err(|e: crate::list::FilterError| e.to_string())
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse().map_err(|e: crate::Error| e.to_string())
}

/// A size in bytes: a number with an optional unit K, M, G or T (powers of 1024; `KiB`, `MB`
/// and the like are read the same way).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches('B')
        .trim_end_matches('I')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => {
            return Err(format!(
                "'{}' is not a size (write e.g. 8G, 512M, 2GiB or a number of bytes)",
                crate::error::clip(s)
            ));
        }
    };
    let x: f64 = num.parse().map_err(|_| {
        format!(
            "'{}' is not a size (write e.g. 8G, 512M, 2GiB or a number of bytes)",
            crate::error::clip(s)
        )
    })?;
    let bytes = x * (1u64 << shift) as f64;
    if bytes < 1.0 {
        return Err(format!(
            "'{}' is not a usable size (at least 1 byte)",
            crate::error::clip(s)
        ));
    }
    if bytes > 1.8e19 {
        return Err(format!(
            "'{}' is too large (at most 16E, 2^64 bytes less one)",
            crate::error::clip(s)
        ));
    }
    Ok(bytes as u64)
}

/// A whole number in `lo..=hi`; the message names the value and the range (`what`: the plural
/// noun, "seeds").
fn whole(s: &str, what: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let allowed = format!("allowed {what}: {lo} to {hi}");
    let n: i128 = s.trim().parse().map_err(|_| {
        format!(
            "'{}' is not a whole number ({allowed})",
            crate::error::clip(s)
        )
    })?;
    u64::try_from(n)
        .ok()
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| format!("{n} is out of range ({allowed})"))
}

fn parse_seed(s: &str) -> Result<u64, String> {
    whole(s, "seeds", 0, u64::MAX)
}

fn parse_starts(s: &str) -> Result<u64, String> {
    whole(s, "start squares", 1, u64::MAX)
}

fn parse_budget(s: &str) -> Result<u64, String> {
    whole(s, "node budgets", 1, u64::MAX)
}

fn parse_probes(s: &str) -> Result<u64, String> {
    whole(s, "probes", 1, crate::estimate::MAX_PROBES)
}

fn parse_positive(s: &str) -> Result<u64, String> {
    whole(s, "numbers of tours", 1, u64::MAX)
}

/// The most chain moves `--thin` and `--burn-in` take: 10^11, hours of the chain (tens of
/// millions of moves a second), so that a mistyped figure is refused rather than run for ever.
const MAX_MOVES: u64 = 100_000_000_000;

fn parse_moves(s: &str) -> Result<u64, String> {
    whole(s, "numbers of moves", 1, MAX_MOVES)
}

fn parse_burn_in(s: &str) -> Result<u64, String> {
    whole(s, "numbers of moves", 0, MAX_MOVES)
}

/// 1 to [`max_threads`](crate::count::driver::max_threads): past it, threads gain nothing and
/// tens of thousands of them exhaust the memory.
fn parse_threads(s: &str) -> Result<NonZeroUsize, String> {
    let max = crate::count::driver::max_threads();
    let n = whole(s, "threads", 1, max as u64).map_err(|e| {
        format!("{e}: past 4 per core (or 64 on a small machine) threads gain nothing")
    })?;
    Ok(NonZeroUsize::new(n as usize).expect("at least 1"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        for bad in ["", "G", "8X", "-1G", "0"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn square_lists() {
        let sq = |c: u32, r: u32| Square::new(r - 1, c - 1);
        assert_eq!(
            parse_square_list("e6,c4 b3").unwrap().0,
            vec![sq(5, 6), sq(3, 4), sq(2, 3)]
        );
        assert_eq!(
            parse_square_list("5,6;3,4 a1").unwrap().0,
            vec![sq(5, 6), sq(3, 4), sq(1, 1)]
        );
        assert!(parse_square_list("e6,z").is_err());
        assert!(parse_square_list("").unwrap().0.is_empty());
    }
}
