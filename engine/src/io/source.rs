//! Byte sources under the readers: a seekable one for regular files (reads land
//! straight in the caller's buffer, skipped bytes are a seek) and a streaming one for
//! pipes and standard input (skipped bytes pass through one reused buffer).

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// Capacity of the streaming source's buffer. Reads at least this large bypass it
/// and land straight in the caller's buffer; skipped bytes go through it.
pub(crate) const STREAM_BUFFER: usize = 256 * 1024;

/// Bytes of a seekable source read per call while looking for a line's end.
const LINE_CHUNK: usize = 128;

/// Where a reader's bytes come from.
pub(crate) trait ByteSource: Send {
    /// Reads until `buf` is full or the input ends; returns the bytes read (fewer
    /// than `buf.len()` only at the end of the input).
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize>;

    /// Skips `n` bytes; returns the bytes skipped (fewer than `n` only at the end).
    fn skip_bytes(&mut self, n: u64) -> io::Result<u64>;

    /// Appends bytes to `line` up to and including the next `\n`, reading at most
    /// `max` bytes. Returns true when the `\n` was found; false when the input ended
    /// or `max` bytes held no `\n` (what was read is in `line` either way).
    fn read_line(&mut self, line: &mut Vec<u8>, max: usize) -> io::Result<bool>;

    /// Bytes from the current position to the end, when known up front (regular
    /// files).
    fn remaining(&self) -> Option<u64>;

    /// Moves to `pos` bytes from the start, when the source can (regular files).
    fn seek_to(&mut self, pos: u64) -> io::Result<()>;

    /// Bytes from the start of the source to the current position.
    fn position(&self) -> u64;
}

/// Reads `buf.len()` bytes from `r` unless the input ends first; retries on
/// `Interrupted`.
fn fill_from(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A regular file (or anything `Read + Seek`, such as a `Cursor` in tests). Its
/// length is measured once when it is opened.
pub(crate) struct Seekable<R> {
    inner: R,
    pos: u64,
    len: u64,
}

impl<R: Read + Seek> Seekable<R> {
    /// Wraps `inner`, starting at its current position.
    pub(crate) fn new(mut inner: R) -> io::Result<Self> {
        let pos = inner.stream_position()?;
        let len = inner.seek(SeekFrom::End(0))?;
        inner.seek(SeekFrom::Start(pos))?;
        Ok(Self { inner, pos, len })
    }
}

impl<R: Read + Seek + Send> ByteSource for Seekable<R> {
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = fill_from(&mut self.inner, buf)?;
        self.pos += n as u64;
        Ok(n)
    }

    fn skip_bytes(&mut self, n: u64) -> io::Result<u64> {
        let k = n.min(self.len.saturating_sub(self.pos));
        if k > 0 {
            self.inner.seek(SeekFrom::Start(self.pos + k))?;
            self.pos += k;
        }
        Ok(k)
    }

    fn read_line(&mut self, line: &mut Vec<u8>, max: usize) -> io::Result<bool> {
        let mut chunk = [0u8; LINE_CHUNK];
        let mut taken = 0;
        while taken < max {
            let want = LINE_CHUNK.min(max - taken);
            let start = self.pos;
            let n = fill_from(&mut self.inner, &mut chunk[..want])?;
            if let Some(i) = chunk[..n].iter().position(|&b| b == b'\n') {
                line.extend_from_slice(&chunk[..=i]);
                self.pos = start + i as u64 + 1;
                if i + 1 < n {
                    self.inner.seek(SeekFrom::Start(self.pos))?;
                }
                return Ok(true);
            }
            line.extend_from_slice(&chunk[..n]);
            self.pos = start + n as u64;
            taken += n;
            if n < want {
                break;
            }
        }
        Ok(false)
    }

    fn remaining(&self) -> Option<u64> {
        Some(self.len.saturating_sub(self.pos))
    }

    fn seek_to(&mut self, pos: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }

    fn position(&self) -> u64 {
        self.pos
    }
}

/// A pipe or standard input: read once, front to back.
pub(crate) struct Stream<R> {
    inner: BufReader<R>,
    pos: u64,
}

impl<R: Read> Stream<R> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner: BufReader::with_capacity(STREAM_BUFFER, inner),
            pos: 0,
        }
    }
}

/// `fill_buf`, retrying on `Interrupted`.
fn fill_buf_retry<R: Read>(r: &mut BufReader<R>) -> io::Result<&[u8]> {
    loop {
        match r.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    r.fill_buf()
}

impl<R: Read + Send> ByteSource for Stream<R> {
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = fill_from(&mut self.inner, buf)?;
        self.pos += n as u64;
        Ok(n)
    }

    fn skip_bytes(&mut self, n: u64) -> io::Result<u64> {
        // The BufReader's own buffer is the reused scratch: each fill_buf reads into
        // it and consume drops what was read.
        let mut done = 0u64;
        while done < n {
            let avail = fill_buf_retry(&mut self.inner)?;
            if avail.is_empty() {
                break;
            }
            let k = (avail.len() as u64).min(n - done) as usize;
            self.inner.consume(k);
            done += k as u64;
        }
        self.pos += done;
        Ok(done)
    }

    fn read_line(&mut self, line: &mut Vec<u8>, max: usize) -> io::Result<bool> {
        let mut taken = 0;
        while taken < max {
            let avail = fill_buf_retry(&mut self.inner)?;
            if avail.is_empty() {
                return Ok(false);
            }
            let avail = &avail[..avail.len().min(max - taken)];
            if let Some(i) = avail.iter().position(|&b| b == b'\n') {
                line.extend_from_slice(&avail[..=i]);
                self.inner.consume(i + 1);
                self.pos += i as u64 + 1;
                return Ok(true);
            }
            let k = avail.len();
            line.extend_from_slice(avail);
            self.inner.consume(k);
            self.pos += k as u64;
            taken += k;
        }
        Ok(false)
    }

    fn remaining(&self) -> Option<u64> {
        None
    }

    fn seek_to(&mut self, _pos: u64) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "cannot seek in a stream",
        ))
    }

    fn position(&self) -> u64 {
        self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::testutil::Trickle;
    use std::io::Cursor;

    fn sources(data: &[u8]) -> Vec<Box<dyn ByteSource>> {
        vec![
            Box::new(Seekable::new(Cursor::new(data.to_vec())).unwrap()),
            Box::new(Stream::new(Trickle {
                inner: Cursor::new(data.to_vec()),
                chunk: 3,
            })),
        ]
    }

    #[test]
    fn lines_fill_and_skip() {
        let data = b"FRAME a\nabcdefFRAME\nxyz";
        for mut s in sources(data) {
            let mut line = Vec::new();
            assert!(s.read_line(&mut line, 100).unwrap());
            assert_eq!(line, b"FRAME a\n");
            assert_eq!(s.position(), 8);
            let mut buf = [0u8; 3];
            assert_eq!(s.fill(&mut buf).unwrap(), 3);
            assert_eq!(&buf, b"abc");
            assert_eq!(s.skip_bytes(3).unwrap(), 3);
            line.clear();
            assert!(s.read_line(&mut line, 6).unwrap());
            assert_eq!(line, b"FRAME\n");
            line.clear();
            assert!(!s.read_line(&mut line, 100).unwrap());
            assert_eq!(line, b"xyz");
            assert_eq!(s.skip_bytes(5).unwrap(), 0);
            assert_eq!(s.fill(&mut buf).unwrap(), 0);
            assert_eq!(s.position(), data.len() as u64);
        }
    }

    #[test]
    fn line_limit_stops_reading() {
        for mut s in sources(b"0123456789\n") {
            let mut line = Vec::new();
            assert!(!s.read_line(&mut line, 4).unwrap());
            assert_eq!(line, b"0123");
            let mut rest = [0u8; 7];
            assert_eq!(s.fill(&mut rest).unwrap(), 7);
            assert_eq!(&rest, b"456789\n");
        }
    }

    #[test]
    fn skip_past_end_stops_at_end() {
        for mut s in sources(b"0123") {
            assert_eq!(s.skip_bytes(10).unwrap(), 4);
            assert_eq!(s.position(), 4);
        }
    }
}
