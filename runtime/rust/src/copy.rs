//! Copies of byte runs into memory the caller has checked: fixed-width moves for short
//! ones, `memcpy` or 64-byte blocks for long ones. Used by the writer (`sink`), by owned
//! decoding of strings (`reader`) and of number arrays (`le`); depends on none of them.

use core::ptr;

/// Copies `src` to `dst` with fixed-width loads and stores: two overlapping 8- (or 4-, 16-)
/// byte copies for a short string instead of a call to libc `memcpy` (the calls were about
/// half of encoding in the profiles: schema strings average ~16 B). Constant lengths fold
/// to one store after inlining.
///
/// # Safety
/// `dst` must be valid for writes of `src.len()` bytes and must not overlap `src`.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    // SAFETY (every branch): each load reads inside `src` (offsets `0` and `n - k` with
    // `k <= n`) and each store writes inside `dst[..n]`, which the caller guarantees.
    unsafe {
        // Up to 16 bytes first: most strings are that short, so they meet one compare
        // fewer on their way to their copy.
        if n <= 16 {
            if n >= 8 {
                let a = ptr::read_unaligned(s.cast::<u64>());
                let z = ptr::read_unaligned(s.add(n - 8).cast::<u64>());
                ptr::write_unaligned(dst.cast::<u64>(), a);
                ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), z);
            } else if n >= 4 {
                let a = ptr::read_unaligned(s.cast::<u32>());
                let z = ptr::read_unaligned(s.add(n - 4).cast::<u32>());
                ptr::write_unaligned(dst.cast::<u32>(), a);
                ptr::write_unaligned(dst.add(n - 4).cast::<u32>(), z);
            } else if n > 0 {
                // 1–3 bytes: first, middle and last (they coincide when shorter).
                *dst = *s;
                *dst.add(n / 2) = *s.add(n / 2);
                *dst.add(n - 1) = *s.add(n - 1);
            }
        } else if n <= 32 {
            let a = ptr::read_unaligned(s.cast::<u128>());
            let z = ptr::read_unaligned(s.add(n - 16).cast::<u128>());
            ptr::write_unaligned(dst.cast::<u128>(), a);
            ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), z);
        } else if n <= 64 {
            // Two overlapping 32-byte copies (four 16-byte moves): a short array (five
            // `f64`s) no longer pays a `memcpy` call.
            let a = ptr::read_unaligned(s.cast::<u128>());
            let b = ptr::read_unaligned(s.add(16).cast::<u128>());
            let y = ptr::read_unaligned(s.add(n - 32).cast::<u128>());
            let z = ptr::read_unaligned(s.add(n - 16).cast::<u128>());
            ptr::write_unaligned(dst.cast::<u128>(), a);
            ptr::write_unaligned(dst.add(16).cast::<u128>(), b);
            ptr::write_unaligned(dst.add(n - 32).cast::<u128>(), y);
            ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), z);
        } else {
            copy_long(s, dst, n);
        }
    }
}

/// Whether a copy of `n` bytes from `src` to `dst` would meet `rep movsb`'s page-aliasing
/// slowdown: glibc up to 2.38 copies more than ~2 KiB with `rep movsb`, which AMD Zen 3/4
/// run 10-25x slower when the destination lies 1-15 bytes above the source modulo 4 KiB
/// (glibc bug 30994; `bench/codec-c/memcpy-offset`). The window is taken as 1-31 bytes (at
/// 16-31 the blocks are faster too). Only up to 1 MiB: above its L2 size (512 KiB-1 MiB)
/// glibc copies on AMD without `rep movsb`, and where it still uses it (Intel, up to its
/// non-temporal threshold) the blocks were 15-20 % slower than `memcpy` at 64 MiB, at any
/// distance (`bench/big/copy-probe.c`; BENCHMARKS.md "Big messages").
#[inline(always)]
pub(crate) fn rep_movsb_aliases(src: *const u8, dst: *const u8, n: usize) -> bool {
    let distance = (dst as usize).wrapping_sub(src as usize) & 4095;
    n > 2048 && n <= 1 << 20 && distance.wrapping_sub(1) < 31
}

/// `copy_nonoverlapping` of `n` bytes, in 64-byte blocks where `rep movsb` would alias
/// ([`rep_movsb_aliases`]). Only the length test is inlined; the rest is out of line, so a
/// short copy costs one compare more than a plain `memcpy` call.
///
/// # Safety
/// As for `ptr::copy_nonoverlapping(src, dst, n)`.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) unsafe fn copy_long(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        if n > 2048 {
            copy_over_2k(src, dst, n);
        } else {
            ptr::copy_nonoverlapping(src, dst, n);
        }
    }
}

/// [`copy_long`] for `n > 2048`, out of line so that the inlined part stays one compare
/// (`#[cold]`: a copy this long takes far longer than the call).
///
/// # Safety
/// As for `ptr::copy_nonoverlapping(src, dst, n)`.
#[cold]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn copy_over_2k(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        if rep_movsb_aliases(src, dst, n) {
            copy_blocks(src, dst, n);
        } else {
            ptr::copy_nonoverlapping(src, dst, n);
        }
    }
}

/// Copies `n > 2048` bytes in 64-byte blocks (vector moves, no `rep movsb`): a first
/// block, then blocks whose stores start on a 64-byte line (none splits a line), then a
/// last block overlapping the one before it. A compiler fence in the loop keeps LLVM from
/// turning it back into one `memcpy` call (`black_box` on the index did too, 20 % slower).
///
/// # Safety
/// As for `ptr::copy_nonoverlapping(src, dst, n)`, with `n >= 128`.
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn copy_blocks(src: *const u8, dst: *mut u8, n: usize) {
    type Block = [u8; 64];
    // SAFETY: every block read is inside `src[..n]` and every block written inside
    // `dst[..n]` (offsets 0, then `i` with `i + 64 <= n`, then `n - 64`; `n >= 128`); the
    // two do not overlap.
    unsafe {
        let mut i = 64 - (dst as usize & 63);
        ptr::write_unaligned(dst.cast::<Block>(), ptr::read_unaligned(src.cast::<Block>()));
        while n - i >= 64 {
            let b = ptr::read_unaligned(src.add(i).cast::<Block>());
            ptr::write_unaligned(dst.add(i).cast::<Block>(), b);
            // Emits no instruction (see above).
            core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
            i += 64;
        }
        let b = ptr::read_unaligned(src.add(n - 64).cast::<Block>());
        ptr::write_unaligned(dst.add(n - 64).cast::<Block>(), b);
    }
}
