//! Arrays of views in an arena (feature `arena`; code generated with `[generate.rust]
//! memory = "arena"`): each array of struct or string views is a `&'a [T]` built in place
//! in a [`Arena`] the caller passes to `decode_view_in`, instead of one `Vec` (one
//! `malloc` and one `free`) per array. Reset the arena between decodes and a loop of
//! decodes allocates nothing once the arena has grown to the largest message.

use core::marker::PhantomData;

use crate::DecodeError;

/// The arena of `memory = "arena"` views: [`bumpalo::Bump`], re-exported so that a crate
/// needs no dependency of its own. `Arena::new()`, pass `&arena` to `decode_view_in`,
/// `arena.reset()` (which needs `&mut`, so every view of the last decode must be gone)
/// before the next one to reuse its memory.
pub use bumpalo::Bump as Arena;

/// Room for `n` elements of `T` in an arena, charged to the reader's budget
/// ([`crate::Reader::slots`]); [`Slots::fill`] builds them.
#[derive(Debug)]
pub struct Slots<'a, T> {
    arena: &'a Arena,
    n: usize,
    elem: PhantomData<fn() -> T>,
}

impl<'a, T> Slots<'a, T> {
    #[inline]
    pub(crate) fn new(arena: &'a Arena, n: usize) -> Slots<'a, T> {
        Slots {
            arena,
            n,
            elem: PhantomData,
        }
    }

    /// Builds the elements in order with `f(index)`, in place in the arena. The first
    /// error is returned as it is (the arena takes back the room).
    #[inline(always)]
    pub fn fill(self, f: impl FnMut(usize) -> Result<T, DecodeError>) -> Result<&'a [T], DecodeError> {
        // The arena never runs destructors: only types without one may live in it (views
        // are references, `LeSlice`s, numbers and other views).
        const { assert!(!core::mem::needs_drop::<T>(), "arena elements must not need Drop") };
        match self.arena.alloc_slice_try_fill_with(self.n, f) {
            Ok(s) => Ok(s),
            Err(e) => Err(e),
        }
    }
}
