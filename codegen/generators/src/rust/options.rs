//! The Rust generator's options ([`RustOptions`]).

use crate::{Memory, OwnedStrings};

/// Which optimizations the emitted code uses. [`generate`](super::generate) uses
/// [`RustOptions::default`] (all on); [`RustOptions::PLAIN`] turns them all off, for the
/// benchmarks in `bench/` that measure what each one buys (spec §6). Every combination encodes and decodes
/// the same bytes and reports the same errors (paths may point at a field instead of the
/// start of its fixed block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RustOptions {
    /// Consecutive fixed-size fields (nested fixed structs inlined) are one fixed block:
    /// one bounds check on decode, one stack buffer and one append on encode. Off: every
    /// field is read and written on its own, with its own bounds check, nested structs
    /// through calls.
    pub fixed_blocks: bool,
    /// Primitive arrays are appended with their count in one write (`w.prims32` /
    /// `w.prims16`: one room check, one copy of the elements on little-endian hosts) and
    /// decoded with one bounds check and one conversion pass. Off: one `put_prim` / checked read per element.
    pub bulk_arrays: bool,
    /// The owned type of string fields (views always borrow `&'a str`).
    pub strings: OwnedStrings,
    /// The decoders and `write_to` of structs that are array elements are
    /// `#[inline(always)]`, so each element is built in place in the loop instead of
    /// returned through memory and then moved into the `Vec` (measured: view and owned
    /// decode 0.6–0.87x the time, docs/benchmarks/history.md "#14 Rust, 2026-11-24 session
    /// 2"), and
    /// written with the writer kept in registers instead of returned through memory
    /// ("session 3"). Off: LLVM decides.
    pub inline_elements: bool,
    /// Where views keep their arrays of struct and string views ([`Memory`]).
    pub memory: Memory,
}

impl RustOptions {
    /// Every optimization off: a straightforward field-by-field codec.
    pub const PLAIN: RustOptions = RustOptions {
        fixed_blocks: false,
        bulk_arrays: false,
        strings: OwnedStrings::Std,
        inline_elements: false,
        memory: Memory::Std,
    };
}

impl Default for RustOptions {
    fn default() -> Self {
        RustOptions {
            fixed_blocks: true,
            bulk_arrays: true,
            strings: OwnedStrings::Std,
            inline_elements: true,
            memory: Memory::Std,
        }
    }
}
