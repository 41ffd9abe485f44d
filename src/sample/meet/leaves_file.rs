//! The `--leaves` file: the count's leaves kept for later runs, checked against the board and
//! the count that wrote them.

use super::*;

/// The leaves of a count met in the middle in a file (`sample --leaves FILE`), so that later
/// runs draw without counting again: the cut, the rules and every leaf's count, as JSON on one
/// line, then a line with the CRC-32 of the first (a file that fails it is refused: a leaf's
/// count wrong would make the tours of every other leaf more or less likely than they are, and
/// only the leaves a batch lands in are checked when they are made again).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct LeavesFile {
    pub(super) format: String,
    pub(super) board: String,
    pub(super) piece: String,
    pub(super) closed: bool,
    pub(super) cut: (u32, u32, u32),
    pub(super) true_right: bool,
    pub(super) rules: layout::Rules,
    /// Depth, digits (a base-3 number) and count of each leaf.
    pub(super) leaves: Vec<(usize, u64, String)>,
    pub(super) total: String,
}

/// The most bytes a leaves file is read for (a million leaves at about 25 bytes each, far past
/// any count met in the middle this engine makes).
pub(super) const LEAVES_BYTES: u64 = 64 << 20;

/// What the first field of a leaves file says.
pub(super) const LEAVES_FORMAT: &str = "knights sample leaves 1";

impl LeavesFile {
    pub(super) fn write(
        path: &std::path::Path,
        board: Board,
        piece: &Piece,
        closed: bool,
        log: &MeetLeaves,
    ) -> Result<(), Fault> {
        let total: num_bigint::BigUint = log.leaves.iter().map(|l| &l.2).sum();
        let body = LeavesFile {
            format: LEAVES_FORMAT.into(),
            board: board.to_string(),
            piece: piece.to_string(),
            closed,
            cut: log.cut,
            true_right: log.true_right,
            rules: log.rules.clone(),
            leaves: (log.leaves.iter())
                .map(|(j, p, c)| (*j, *p, c.to_string()))
                .collect(),
            total: total.to_string(),
        };
        let line = serde_json::to_string(&body).map_err(|e| e.to_string())?;
        let text = format!("{line}\n{:08x}\n", crc32fast::hash(line.as_bytes()));
        // written whole beside it, then renamed: a run stopped part-way leaves no half file
        crate::durable::replace(path, text.as_bytes()).map_err(|e| match e {
            crate::durable::CheckpointError::Io { source, .. } => Fault::Disk(
                crate::durable::DiskError::io("write", path, "the leaves file", &source),
            ),
            e => fault!("{e}"),
        })
    }

    pub(super) fn read(
        path: &std::path::Path,
        board: Board,
        piece: &Piece,
        closed: bool,
    ) -> Result<MeetLeaves, Fault> {
        let shown = path.display();
        // read no further than a leaves file goes (8x8 closed's 970 leaves are 21 KB): a path
        // given by mistake to something endless is refused, not read for ever
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|f| {
                use std::io::Read;
                f.take(LEAVES_BYTES + 1).read_to_string(&mut text)
            })
            .map_err(|e| fault!("cannot read the leaves file '{shown}': {e}"))?;
        if text.len() as u64 > LEAVES_BYTES {
            return Err(fault!(
                "'{shown}' is larger than a leaves file can be ({}): give another path",
                human_bytes(LEAVES_BYTES)
            ));
        }
        let damaged = |why: &str| {
            format!(
                "'{shown}' is not a leaves file as this program writes them, or is damaged ({why}): give another path (a run given one that does not exist counts and writes it there)"
            )
        };
        let (line, check) = text
            .trim_end()
            .rsplit_once('\n')
            .ok_or_else(|| damaged("no check line"))?;
        if u32::from_str_radix(check, 16).ok() != Some(crc32fast::hash(line.as_bytes())) {
            return Err(damaged("its check fails").into());
        }
        let body: LeavesFile = serde_json::from_str(line).map_err(|e| damaged(&e.to_string()))?;
        if body.format != LEAVES_FORMAT {
            return Err(fault!(
                "'{shown}' is not a leaves file of this version (it says '{}'; '{LEAVES_FORMAT}' expected)",
                body.format
            ));
        }
        let kind = |c: bool| if c { "closed" } else { "open" };
        if (body.board.as_str(), body.piece.as_str(), body.closed)
            != (
                board.to_string().as_str(),
                piece.to_string().as_str(),
                closed,
            )
        {
            return Err(fault!(
                "the leaves file '{shown}' holds {} tours of {} by the {}, not {} tours of {board} by the {piece}: give another file",
                kind(body.closed),
                body.board,
                body.piece,
                kind(closed)
            ));
        }
        let mut leaves = Vec::with_capacity(body.leaves.len());
        for (j, p, c) in body.leaves {
            let c: num_bigint::BigUint = c.parse().map_err(|_| damaged("a count"))?;
            leaves.push((j, p, c));
        }
        let total: num_bigint::BigUint = leaves.iter().map(|l| &l.2).sum();
        if total.to_string() != body.total {
            return Err(damaged("its leaves do not add up to its total").into());
        }
        Ok(MeetLeaves {
            cut: body.cut,
            true_right: body.true_right,
            leaves,
            rules: body.rules,
            pieces: std::collections::BTreeMap::new(),
        })
    }
}
