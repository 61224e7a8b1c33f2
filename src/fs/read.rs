//! `read_file`: a window of lines of one regular file, bounded in lines and bytes.
//!
//! The file is streamed from the start and reading stops as soon as the window is full, so a
//! huge file costs what the window costs (plus skipping to its offset). Text must be UTF-8; a
//! file with NUL bytes in its first block is binary and is reported, not shown.

use std::io::Read;

use rustix::fs::{Mode, OFlags};

use super::{FsError, RelPath, Root};

/// Lines returned when the request gives no limit.
pub const DEFAULT_LIMIT: usize = 2_000;
/// Bytes returned when the request gives no cap.
pub const DEFAULT_MAX_BYTES: usize = 256 * 1024;
/// The largest cap a request may ask for.
pub const MAX_MAX_BYTES: usize = 8 * 1024 * 1024;
/// The block checked for NUL bytes.
const SNIFF: usize = 8 * 1024;

/// A window of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The lines, with their terminators.
    pub text: String,
    /// The 1-based number of the first line shown.
    pub first_line: usize,
    /// Lines shown (a last line cut by the byte cap counts).
    pub lines: usize,
    /// Whether the file goes on after the window.
    pub more: bool,
    /// Whether the byte cap cut the window (rather than the line limit or the end).
    pub capped: bool,
    /// The file's size in bytes.
    pub file_bytes: u64,
}

/// Opens `rel` for reading: beneath the root, no links, a regular file only (a FIFO or a
/// device is reported, never read: the open does not block and the type is checked first).
pub fn open_regular(
    root: &Root,
    rel: &RelPath,
) -> Result<(std::fs::File, rustix::fs::Stat), FsError> {
    let fd = root.open(
        rel,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
    )?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| root.classify(rel, e))?;
    let kind = super::root::kind_of(stat.st_mode);
    if kind != "file" {
        return Err(FsError::NotARegularFile {
            path: rel.as_text(),
            kind,
        });
    }
    Ok((std::fs::File::from(fd), stat))
}

/// Reads lines `offset..offset+limit` (1-based) of `rel`, at most `max_bytes` of them.
pub fn read_window(
    root: &Root,
    rel: &RelPath,
    offset: usize,
    limit: usize,
    max_bytes: usize,
) -> Result<Window, FsError> {
    let (mut file, stat) = open_regular(root, rel)?;
    let offset = offset.max(1);
    let mut buf = vec![0u8; 64 * 1024];
    let mut out: Vec<u8> = Vec::new();
    let mut line = 1usize;
    let mut shown = 0usize;
    let mut sniffed = 0usize;
    let mut capped = false;
    let mut more = false;
    'read: loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FsError::io(&rel.as_text(), e)),
        };
        let mut chunk = &buf[..n];
        if sniffed < SNIFF {
            let look = chunk.len().min(SNIFF - sniffed);
            if memchr::memchr(0, &chunk[..look]).is_some() {
                return Err(FsError::NotUtf8 {
                    path: rel.as_text(),
                    detail: format!("a binary file of {} bytes", stat.st_size),
                });
            }
            sniffed += look;
        }
        // Skip to the first line of the window.
        while line < offset {
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    line += 1;
                    chunk = &chunk[i + 1..];
                }
                None => continue 'read,
            }
        }
        // Take whole lines until the limit or the cap.
        while !chunk.is_empty() {
            if shown >= limit {
                more = true;
                break 'read;
            }
            let end = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |i| i + 1);
            let room = max_bytes.saturating_sub(out.len());
            if end > room {
                out.extend_from_slice(&chunk[..room]);
                capped = true;
                more = true;
                if !out.ends_with(b"\n") {
                    shown += 1;
                }
                break 'read;
            }
            out.extend_from_slice(&chunk[..end]);
            chunk = &chunk[end..];
            if out.ends_with(b"\n") {
                shown += 1;
                line += 1;
            }
        }
    }
    // A last line without a terminator is a line.
    if !capped && !out.is_empty() && !out.ends_with(b"\n") {
        shown += 1;
    }
    let text = match String::from_utf8(out) {
        Ok(text) => text,
        // The cap may have split a character: keep what is whole.
        Err(e) if capped && e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
        Err(e) => {
            return Err(FsError::NotUtf8 {
                path: rel.as_text(),
                detail: format!(
                    "invalid UTF-8 at byte {} of the window",
                    e.utf8_error().valid_up_to()
                ),
            });
        }
    };
    Ok(Window {
        text,
        first_line: offset,
        lines: shown,
        more,
        capped,
        file_bytes: u64::try_from(stat.st_size).unwrap_or(0),
    })
}

/// Reads a whole regular file of at most `limit` bytes (for edits and backups).
pub fn read_all(
    root: &Root,
    rel: &RelPath,
    limit: u64,
) -> Result<(Vec<u8>, rustix::fs::Stat), FsError> {
    let (file, stat) = open_regular(root, rel)?;
    let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
    if size > limit {
        return Err(FsError::FileTooLarge {
            path: rel.as_text(),
            bytes: size,
            limit,
            hint: "edit a smaller file, or change it with a command".into(),
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FsError::io(&rel.as_text(), e))?;
    if bytes.len() as u64 > limit {
        return Err(FsError::FileTooLarge {
            path: rel.as_text(),
            bytes: bytes.len() as u64,
            limit,
            hint: "the file grew while being read".into(),
        });
    }
    Ok((bytes, stat))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(content: &[u8]) -> (tempfile::TempDir, Root, RelPath) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("f.txt"), content).expect("write");
        let root = Root::new(dir.path()).expect("root");
        (dir, root, RelPath::parse("f.txt").expect("path"))
    }

    #[test]
    fn a_window_of_lines_is_returned_with_what_follows_said() {
        let (_d, root, rel) = setup(b"one\ntwo\nthree\nfour");
        let w = read_window(&root, &rel, 2, 2, 1024).expect("read");
        assert_eq!(w.text, "two\nthree\n");
        assert_eq!(
            (w.first_line, w.lines, w.more, w.capped),
            (2, 2, true, false)
        );
        let w = read_window(&root, &rel, 3, 10, 1024).expect("read");
        assert_eq!(w.text, "three\nfour");
        assert_eq!((w.lines, w.more), (2, false));
        let w = read_window(&root, &rel, 9, 10, 1024).expect("read");
        assert_eq!((w.text.as_str(), w.lines, w.more), ("", 0, false));
    }

    #[test]
    fn the_byte_cap_cuts_on_a_character_boundary() {
        let (_d, root, rel) = setup("ééééé\nx\n".as_bytes());
        let w = read_window(&root, &rel, 1, 10, 5).expect("read");
        assert_eq!(w.text, "éé");
        assert!(w.capped && w.more);
    }

    #[test]
    fn binary_and_invalid_text_are_reported_not_shown() {
        let (_d, root, rel) = setup(b"PNG\0\x01\x02");
        assert!(matches!(
            read_window(&root, &rel, 1, 10, 1024),
            Err(FsError::NotUtf8 { .. })
        ));
        let (_d, root, rel) = setup(b"caf\xe9\n");
        assert!(matches!(
            read_window(&root, &rel, 1, 10, 1024),
            Err(FsError::NotUtf8 { .. })
        ));
    }

    #[test]
    fn directories_and_fifos_are_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("d")).expect("mkdir");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join("fifo"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
        let root = Root::new(dir.path()).expect("root");
        for (name, kind) in [("d", "directory"), ("fifo", "fifo")] {
            let rel = RelPath::parse(name).expect("path");
            match read_window(&root, &rel, 1, 10, 100) {
                Err(FsError::NotARegularFile { kind: k, .. }) => assert_eq!(k, kind),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
