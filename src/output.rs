//! Bounded output: what a command prints reaches the caller, but never more than a budget.
//!
//! The head of a stream is passed through as it arrives; past half the budget, only the most
//! recent bytes are kept (the other half); whatever falls out between the two is counted and
//! hashed, and a marker says how many bytes were dropped and their SHA-256. The stream is always
//! drained, so the command never blocks on a full pipe, and memory stays bounded by the budget
//! whatever the command prints.

use std::io::{Read, Write};

use sha2::{Digest, Sha256};

/// The SHA-256 of some bytes, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Default budget per stream.
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// A capped copy of one stream.
pub struct Capped {
    head_left: usize,
    tail_max: usize,
    tail: Vec<u8>,
    dropped: u64,
    hasher: Sha256,
}

impl Capped {
    pub fn new(max: usize) -> Capped {
        let head = max / 2;
        Capped {
            head_left: head,
            tail_max: max - head,
            tail: Vec::new(),
            dropped: 0,
            hasher: Sha256::new(),
        }
    }

    /// Takes a chunk: writes what still fits in the head to `out`, keeps the rest for the tail.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut impl Write) -> std::io::Result<()> {
        if self.head_left > 0 {
            let n = chunk.len().min(self.head_left);
            out.write_all(&chunk[..n])?;
            self.head_left -= n;
            chunk = &chunk[n..];
        }
        if chunk.is_empty() {
            return Ok(());
        }
        self.tail.extend_from_slice(chunk);
        // Let the tail grow to twice its budget before dropping, so each byte moves once.
        if self.tail.len() > self.tail_max.saturating_mul(2).max(1) {
            let excess = self.tail.len() - self.tail_max;
            self.hasher.update(&self.tail[..excess]);
            self.dropped += excess as u64;
            self.tail.drain(..excess);
        }
        Ok(())
    }

    /// Writes the marker (if anything was dropped) and the tail.
    pub fn finish(mut self, out: &mut impl Write) -> std::io::Result<u64> {
        if self.tail.len() > self.tail_max {
            let excess = self.tail.len() - self.tail_max;
            self.hasher.update(&self.tail[..excess]);
            self.dropped += excess as u64;
            self.tail.drain(..excess);
        }
        if self.dropped > 0 {
            let digest: String = self
                .hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            write!(
                out,
                "\n[warden: {} bytes of output dropped here, sha256 {digest}]\n",
                self.dropped
            )?;
        }
        out.write_all(&self.tail)?;
        out.flush()?;
        Ok(self.dropped)
    }
}

/// Copies `input` to `out` within the budget until the input ends. Returns the bytes dropped.
pub fn copy_capped(mut input: impl Read, mut out: impl Write, max: usize) -> std::io::Result<u64> {
    let mut cap = Capped::new(max);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                // A reader that went away (closed pipe) still lets the command finish: keep draining.
                let _ = cap.feed(&buf[..n], &mut out);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    cap.finish(&mut out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_within_the_budget_passes_unchanged() {
        let mut out = Vec::new();
        let dropped = copy_capped(&b"hello\nworld\n"[..], &mut out, 1024).expect("copy");
        assert_eq!(dropped, 0);
        assert_eq!(out, b"hello\nworld\n");
    }

    #[test]
    fn over_the_budget_keeps_head_and_tail_and_names_what_was_dropped() {
        let input: Vec<u8> = (0..10_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let mut out = Vec::new();
        let dropped = copy_capped(&input[..], &mut out, 1000).expect("copy");
        assert_eq!(dropped, 9_000);
        let text = String::from_utf8(out).expect("utf8");
        assert!(text.starts_with(std::str::from_utf8(&input[..500]).expect("utf8")));
        assert!(text.ends_with(std::str::from_utf8(&input[9_500..]).expect("utf8")));
        let expected: String = Sha256::digest(&input[500..9_500])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(
            text.contains(&format!(
                "9000 bytes of output dropped here, sha256 {expected}"
            )),
            "{text}"
        );
    }

    #[test]
    fn memory_stays_bounded_for_a_large_stream() {
        let mut cap = Capped::new(4096);
        let mut sink = std::io::sink();
        let chunk = vec![b'x'; 65_536];
        for _ in 0..1_000 {
            cap.feed(&chunk, &mut sink).expect("feed");
            assert!(cap.tail.len() <= 2 * 2048 + chunk.len());
        }
        let dropped = cap.finish(&mut sink).expect("finish");
        assert_eq!(dropped, 65_536 * 1_000 - 4096);
    }
}
