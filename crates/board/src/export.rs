//! `GET /api/runs/{id}`: a run's JSON export, sent as it is read. The
//! store gives the run's outline (no samples) and the export's frame is made
//! from it; then each point's samples are read [`CHUNK`] at a time, each
//! read on the blocking pool, written into their gap and handed to the
//! connection, waiting while the client is slower than the store — so an
//! export holds a chunk of samples and a little text, however many samples
//! the run has, and no thread while it waits. At most
//! [`SENDING`](crate::cache::SENDING) exports are sent at once; more are
//! answered [`Answer::Busy`]. A finished run's export of at most
//! [`EXPORT_ONE`] is kept and answered whole from then on.

use crate::cache::{Board, EXPORT_ONE};
use crate::pages::Problem;
use axum::body::Body;
use bytes::Bytes;
use http_body_util::channel::{Channel, Sender};
use std::io;
use std::sync::Arc;
use tokio::sync::OwnedSemaphorePermit;
use toll_report::export::{Frame, Gap, SampleList};
use toll_store::{Outline, PointRef, RunStatus};

/// Samples read from the store at a time.
const CHUNK: usize = 4096;
/// Chunks of text waiting for the connection, per export.
const QUEUED: usize = 2;
/// The fewest bytes a sample takes in the export: its braces and two keys,
/// each on a line of its own.
const SAMPLE_TEXT: u64 = 40;

/// What `GET /api/runs/{id}` answers.
pub enum Answer {
    /// The export, kept whole.
    Kept(Bytes),
    /// The export, as it is read.
    Sent(Body),
    /// As many exports are being sent as the board sends at once.
    Busy,
}

/// Run `id`'s export.
pub async fn answer(board: Arc<Board>, id: i64) -> Result<Answer, Problem> {
    if let Some(kept) = board.kept_export(id) {
        return Ok(Answer::Kept(kept));
    }
    let Ok(permit) = board.sending.clone().try_acquire_owned() else {
        return Ok(Answer::Busy);
    };
    let b = board.clone();
    let (outline, frame) = tokio::task::spawn_blocking(move || {
        let outline = b.store().load_outline(id)?;
        let frame = Frame::of(&outline.run);
        Ok::<_, Problem>((outline, frame))
    })
    .await
    .map_err(|_| Problem::Request(500, format!("reading run {id} failed")))??;
    let (tx, body) = Channel::<Bytes, io::Error>::new(QUEUED);
    tokio::spawn(send(board, id, outline, frame, tx, permit));
    Ok(Answer::Sent(Body::new(body)))
}

/// Write the export into `tx`; on a failed read, end it short (the client
/// sees a broken answer, never a wrong whole one).
async fn send(
    board: Arc<Board>,
    id: i64,
    outline: Outline,
    frame: Frame,
    mut tx: Sender<Bytes, io::Error>,
    _permit: OwnedSemaphorePermit,
) {
    // A copy is made only of an export that may be small enough to keep.
    let samples: u64 = outline.points.iter().flatten().map(|p| p.count).sum();
    let least = (frame.text.len() as u64).saturating_add(samples.saturating_mul(SAMPLE_TEXT));
    let keep = outline.run.status != RunStatus::Running && least <= EXPORT_ONE as u64;
    let mut out = Out {
        tx: &mut tx,
        text: Vec::new(),
        kept: keep.then(Vec::new),
    };
    match write(&board, &outline.points, &frame, &mut out).await {
        Ok(true) => {
            if let Some(whole) = out.kept.take() {
                board.keep_export(id, Bytes::from(whole));
            }
        }
        // The client has gone: nothing to tell.
        Ok(false) => {}
        Err(why) => tx.abort(io::Error::other(format!("run {id}: {why}"))),
    }
}

/// The export into `out`: Ok(false) when the client has gone.
async fn write(
    board: &Arc<Board>,
    points: &[Vec<PointRef>],
    frame: &Frame,
    out: &mut Out<'_>,
) -> Result<bool, String> {
    let mut from = 0;
    for gap in &frame.gaps {
        out.text.extend_from_slice(&frame.text[from..gap.at]);
        let point = points
            .get(gap.series)
            .and_then(|s| s.get(gap.point))
            .copied()
            .ok_or("the outline and its frame disagree")?;
        let mut list = SampleList::new(gap);
        let mut read = 0;
        while read < point.count {
            let limit = CHUNK.min(usize::try_from(point.count - read).unwrap_or(CHUNK));
            let b = board.clone();
            let chunk = tokio::task::spawn_blocking(move || b.store().samples(point, read, limit))
                .await
                .map_err(|_| "reading samples failed".to_string())?
                .map_err(|e| e.to_string())?;
            if chunk.is_empty() {
                return Err("removed or changed while it was sent".into());
            }
            read += chunk.len() as u64;
            list.put(&chunk, &mut out.text);
            if !out.flush().await {
                return Ok(false);
            }
        }
        list.end(&mut out.text);
        from = gap.at + Gap::WIDTH;
    }
    out.text.extend_from_slice(&frame.text[from..]);
    Ok(out.flush().await)
}

/// The text made and not yet handed over, and a copy of the whole while it
/// is small enough to keep.
struct Out<'a> {
    tx: &'a mut Sender<Bytes, io::Error>,
    text: Vec<u8>,
    kept: Option<Vec<u8>>,
}

impl Out<'_> {
    /// Hand the text over; false when the client has gone.
    async fn flush(&mut self) -> bool {
        if self.text.is_empty() {
            return true;
        }
        if let Some(k) = &mut self.kept {
            if k.len() + self.text.len() <= EXPORT_ONE {
                k.extend_from_slice(&self.text);
            } else {
                self.kept = None;
            }
        }
        let text = Bytes::from(std::mem::take(&mut self.text));
        self.tx.send_data(text).await.is_ok()
    }
}
