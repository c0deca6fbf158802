//! A git object database written in one go, as one pack: objects hashed in memory and stored
//! whole in a packfile (format version 2) beside its index (version 2).
//!
//! The materializer builds every object of a fixture's commits this way: two files, where
//! libgit2's loose objects cost a temporary file, a link, an unlink and a zlib stream each.
//! Fixture repositories are small and live for one trial, so nothing is compressed: no deltas, and
//! each object's zlib stream is made of stored blocks, as git itself writes them with
//! `core.compression = 0` (deflating was half of a materialization's time). The formats are git's
//! `Documentation/gitformat-pack.txt`, RFC 1950 (zlib) and RFC 1951 section 3.2.4 (stored blocks).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid};
use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use gatebench_gittree as gittree;

/// The packfile's signature and version.
const PACK_MAGIC: &[u8; 4] = b"PACK";
const PACK_VERSION: u32 = 2;
/// The index's signature (`\377tOc`) and version.
const IDX_MAGIC: &[u8; 4] = b"\xfftOc";
const IDX_VERSION: u32 = 2;
/// Offsets at or above this need the index's 8-byte offset table, which is not written.
const MAX_OFFSET: usize = 0x8000_0000;

/// A pack being built: objects are appended as they are inserted, each once.
pub struct Pack {
    /// The packfile so far: the 12-byte header (its count filled in at the end), then objects.
    data: Vec<u8>,
    entries: Vec<Entry>,
    ids: HashSet<Oid>,
}

struct Entry {
    id: Oid,
    offset: u32,
    crc: u32,
}

impl Default for Pack {
    fn default() -> Self {
        Self::new()
    }
}

impl Pack {
    /// An empty pack.
    pub fn new() -> Self {
        let mut data = Vec::with_capacity(64 * 1024);
        data.extend_from_slice(PACK_MAGIC);
        data.extend_from_slice(&PACK_VERSION.to_be_bytes());
        data.extend_from_slice(&0u32.to_be_bytes());
        Self {
            data,
            entries: Vec::new(),
            ids: HashSet::new(),
        }
    }

    /// Adds an object (unless the pack has it already) and returns its id.
    pub fn insert(&mut self, kind: ObjectType, content: &[u8]) -> Oid {
        let id = gittree::object_id(kind, content);
        if !self.ids.insert(id) {
            return id;
        }
        let offset = self.data.len();
        assert!(offset < MAX_OFFSET, "a fixture pack over 2 GiB");
        push_object_header(&mut self.data, type_code(kind), content.len());
        push_zlib_stored(&mut self.data, content);
        let crc = crc32fast::hash(&self.data[offset..]);
        self.entries.push(Entry {
            id,
            offset: offset as u32,
            crc,
        });
        id
    }

    /// The ids of the objects the pack holds, in the order they were inserted.
    pub fn ids(&self) -> impl Iterator<Item = Oid> + '_ {
        self.entries.iter().map(|entry| entry.id)
    }

    /// How many objects the pack holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the pack holds no object.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the packfile and its index into `objects_dir/pack/` (created if missing) as
    /// `pack-<checksum>.pack` and `.idx`, the index last, and returns the packfile's path.
    pub fn write(mut self, objects_dir: &Path) -> Result<PathBuf> {
        let count = self.entries.len() as u32;
        self.data[8..12].copy_from_slice(&count.to_be_bytes());
        let checksum: [u8; 20] = Sha1::digest(&self.data).into();
        self.data.extend_from_slice(&checksum);
        let idx = index(&mut self.entries, &checksum);

        let dir = objects_dir.join("pack");
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
        let name = format!("pack-{}", gittree::hex(&checksum));
        let pack_path = dir.join(format!("{name}.pack"));
        let idx_path = dir.join(format!("{name}.idx"));
        std::fs::write(&pack_path, &self.data).map_err(|e| Error::io("write", &pack_path, e))?;
        std::fs::write(&idx_path, idx).map_err(|e| Error::io("write", &idx_path, e))?;
        Ok(pack_path)
    }
}

/// The pack index (version 2) of `entries`, which it sorts by id.
fn index(entries: &mut [Entry], pack_checksum: &[u8; 20]) -> Vec<u8> {
    entries.sort_unstable_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    let mut out = Vec::with_capacity(8 + 256 * 4 + entries.len() * 28 + 40);
    out.extend_from_slice(IDX_MAGIC);
    out.extend_from_slice(&IDX_VERSION.to_be_bytes());
    // Fan-out: entry i counts the objects whose first byte is at most i.
    let mut fanout = [0u32; 256];
    for entry in entries.iter() {
        fanout[entry.id.as_bytes()[0] as usize] += 1;
    }
    let mut total = 0u32;
    for slot in fanout {
        total += slot;
        out.extend_from_slice(&total.to_be_bytes());
    }
    for entry in entries.iter() {
        out.extend_from_slice(entry.id.as_bytes());
    }
    for entry in entries.iter() {
        out.extend_from_slice(&entry.crc.to_be_bytes());
    }
    for entry in entries.iter() {
        out.extend_from_slice(&entry.offset.to_be_bytes());
    }
    out.extend_from_slice(pack_checksum);
    let own: [u8; 20] = Sha1::digest(&out).into();
    out.extend_from_slice(&own);
    out
}

/// The type and inflated size of an object: the type in bits 4-6 of the first byte with the
/// size's low four bits, then the size seven bits a byte, the high bit saying more follow.
fn push_object_header(out: &mut Vec<u8>, type_code: u8, size: usize) {
    let mut byte = (type_code << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// The largest stored deflate block.
const STORED_BLOCK: usize = 0xffff;

/// `content` as a zlib stream of stored deflate blocks: the zlib header (deflate, 32 KiB window,
/// fastest level), blocks of at most 65535 bytes (a byte whose low bit marks the last block, the
/// length and its one's complement, little-endian, then the bytes), and the Adler-32 of
/// `content`, big-endian.
fn push_zlib_stored(out: &mut Vec<u8>, content: &[u8]) {
    out.reserve(content.len() + 6 + 5 * (content.len() / STORED_BLOCK + 1));
    out.extend_from_slice(&[0x78, 0x01]);
    let blocks = content.len().div_ceil(STORED_BLOCK).max(1);
    for (n, start) in (0..blocks).map(|n| (n, n * STORED_BLOCK)) {
        let block = &content[start..(start + STORED_BLOCK).min(content.len())];
        out.push(u8::from(n + 1 == blocks));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(content).to_be_bytes());
}

/// Adler-32 (RFC 1950 section 8.2), summing in runs short enough that the sums cannot overflow.
fn adler32(content: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    // The longest run after which `b` still fits in 32 bits (zlib's NMAX).
    const RUN: usize = 5552;
    let (mut a, mut b) = (1u32, 0u32);
    for run in content.chunks(RUN) {
        for &byte in run {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

fn type_code(kind: ObjectType) -> u8 {
    match kind {
        ObjectType::Commit => 1,
        ObjectType::Tree => 2,
        ObjectType::Blob => 3,
        ObjectType::Tag => 4,
        ObjectType::Any => panic!("a pack object needs a concrete type"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_header_encodes_type_and_size() {
        let mut out = Vec::new();
        push_object_header(&mut out, 3, 15);
        assert_eq!(out, [0x3f]);
        out.clear();
        push_object_header(&mut out, 3, 16);
        assert_eq!(out, [0xb0, 0x01]);
        out.clear();
        // 1000 = 0b1111101000: low four bits 1000, then 0111110.
        push_object_header(&mut out, 1, 1000);
        assert_eq!(out, [0x98, 0x3e]);
    }

    #[test]
    fn adler32_matches_known_values() {
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        // Long enough to need the modulo between runs: 100 KB of 0xff.
        let ones = vec![0xffu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &byte in &ones {
            a = (a + byte as u64) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&ones), ((b << 16) | a) as u32);
    }

    #[test]
    fn stored_zlib_streams_have_the_right_blocks() {
        let mut out = Vec::new();
        push_zlib_stored(&mut out, b"");
        assert_eq!(out, [0x78, 0x01, 1, 0, 0, 0xff, 0xff, 0, 0, 0, 1]);
        assert_eq!((0x78u32 * 256 + 0x01) % 31, 0, "the header's check bits");
        out.clear();
        let content = vec![7u8; STORED_BLOCK + 10];
        push_zlib_stored(&mut out, &content);
        assert_eq!(out.len(), 2 + 5 + STORED_BLOCK + 5 + 10 + 4);
        assert_eq!(
            &out[2..7],
            &[0, 0xff, 0xff, 0, 0],
            "a full block, not the last"
        );
        let second = 2 + 5 + STORED_BLOCK;
        assert_eq!(
            &out[second..second + 5],
            &[1, 10, 0, 0xf5, 0xff],
            "the last block"
        );
    }

    #[test]
    fn libgit2_reads_every_object_back() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init_bare(dir.path()).unwrap();
        let big: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let contents: Vec<(ObjectType, Vec<u8>)> = vec![
            (ObjectType::Blob, b"hello\n".to_vec()),
            (ObjectType::Blob, Vec::new()),
            (ObjectType::Blob, big),
            (ObjectType::Blob, b"hello\n".to_vec()),
        ];
        let mut pack = Pack::new();
        let ids: Vec<Oid> = contents.iter().map(|(k, c)| pack.insert(*k, c)).collect();
        assert_eq!(pack.len(), 3, "a repeated object is stored once");
        assert_eq!(ids[0], ids[3]);
        pack.write(&dir.path().join("objects")).unwrap();

        let odb = repo.odb().unwrap();
        for ((kind, content), id) in contents.iter().zip(&ids) {
            let object = odb.read(*id).unwrap();
            assert_eq!(object.kind(), *kind);
            assert_eq!(object.data(), content.as_slice());
        }
        let mut listed = 0;
        odb.foreach(|_| {
            listed += 1;
            true
        })
        .unwrap();
        assert_eq!(listed, 3);
    }
}
