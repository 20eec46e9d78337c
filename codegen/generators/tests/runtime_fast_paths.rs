//! The C and C++ runtimes' fast paths (issue 14) against plain reference code, compiled
//! the way users compile them (`-Wall -Wextra -Werror -pedantic`, gcc and clang, C and
//! C++, AddressSanitizer + UndefinedBehaviorSanitizer without recovery):
//!
//! - the UTF-8 check (ASCII 16/8/4 bytes at a time, then the full check out of line) gives
//!   the same first-bad-byte index as a byte-at-a-time decoder written here from the
//!   Unicode rules, for every single bad sequence at every position of strings of 0–80
//!   bytes and for 200,000 random mixes of ASCII, valid and invalid sequences;
//! - (C) the string reader `wl_rd_str` agrees with that check as a view, as an owned
//!   copy (the fused check-and-copy path) and with an arena one byte too small;
//! - (C++) the Reader's string read (`str32`/`str16` into a `std::string_view`: its own
//!   test for strings of up to 8 bytes, whose load may start in the length prefix) agrees
//!   with that check, for both prefix widths, on exactly sized inputs;
//! - (C++) the Reader's `[]bool` read (its check of 8 or 4 + 4 overlapping bytes at a time)
//!   accepts every 00/01 array of 0–40 bytes with the same bools and reports the first
//!   other byte at its offset;
//! - the short-copy path (`wl_copy`: two overlapping fixed-width copies up to 32 bytes)
//!   copies exactly `n` bytes for every n from 0 to 80 at every source/destination
//!   misalignment, and never writes outside `[d, d + n)` (guard bytes and ASan);
//! - the long-copy path (`wl_copy` / C++ `copy_array` above 32 bytes: 64-byte blocks where
//!   glibc's `rep movsb` would alias, memcpy elsewhere) copies exactly `n` bytes, 33 to
//!   65,549, at every distance modulo 4 KiB from 0 to 70 and three far ones.
//!
//! Needs `gcc`, `clang`, `g++` and `clang++` (or `WIRELENS_GCC` / `WIRELENS_CLANG` /
//! `WIRELENS_GXX` / `WIRELENS_CLANGXX`): a missing compiler fails the test.

use std::path::Path;
use std::process::Command;

mod build_common;
use build_common::{compiler, run, workspace};

/// The reference decoder, the random inputs and the checks; `CHECK_UTF8(s, n)` and
/// `COPY(d, s, n)` name the runtime's functions (C or C++).
const PROGRAM: &str = r#"
/* Byte-at-a-time reference: the index of the first byte of the first invalid sequence. */
static size_t ref_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], len, k;
        unsigned long cp, min;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC0 && c <= 0xDF) { len = 2; cp = c & 0x1F; min = 0x80; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF7) { len = 4; cp = c & 0x07; min = 0x10000; }
        else return i;
        if (n - i < len) return i;
        for (k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return i;
        i += len;
    }
    return n;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

/* Valid and invalid sequences mixed into ASCII. */
static const char *const PIECES[] = {
    "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80",
    "\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xC2", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xED\xA0\x80",
    "\xED\xBF\xBF", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\xFE", "\xE2\x82",
    "\xF0\x9F\x98", "\xC3\x28", "\xE2\x28\xA1",
};
#define NPIECES (sizeof PIECES / sizeof PIECES[0])

static int failures = 0;

static void check(const unsigned char *s, size_t n, const char *what) {
    size_t got = CHECK_UTF8(s, n), want = ref_utf8(s, n);
    if (got != want && failures++ < 10) {
        size_t k;
        printf("%s: length %lu: got %lu, want %lu:", what, (unsigned long)n, (unsigned long)got,
               (unsigned long)want);
        for (k = 0; k < n; k++) printf(" %02x", s[k]);
        printf("\n");
    }
}

int main(void) {
    unsigned char buf[96];
    size_t n, at, p, k, iter;
    unsigned long checks = 0;
    /* One piece at every position of every length (the rest ASCII), each in an exactly
       sized heap block so ASan sees any read past the end. */
    for (n = 0; n <= 80; n++) {
        for (p = 0; p < NPIECES; p++) {
            size_t len = strlen(PIECES[p]);
            for (at = 0; at + len <= n; at++) {
                unsigned char *s = (unsigned char *)malloc(n ? n : 1);
                for (k = 0; k < n; k++) s[k] = (unsigned char)('a' + k % 26);
                memcpy(s + at, PIECES[p], len);
                check(s, n, "one piece");
                free(s);
                checks++;
            }
        }
    }
    for (iter = 0; iter < 200000; iter++) {
        unsigned char *s;
        n = 0;
        while (n < 80) {
            unsigned r = next_rand() % 16;
            if (r < 12) {
                buf[n++] = (unsigned char)(0x20 + next_rand() % 0x5F);
            } else {
                const char *piece = r < 15 ? PIECES[next_rand() % 6] : PIECES[next_rand() % NPIECES];
                size_t len = strlen(piece);
                if (n + len > 80) break;
                memcpy(buf + n, piece, len);
                n += len;
            }
            if (next_rand() % 24 == 0) break;
        }
        s = (unsigned char *)malloc(n ? n : 1);
        memcpy(s, buf, n);
        check(s, n, "random");
        free(s);
        checks++;
    }
    /* Short copies: every length, every misalignment, guards around the destination. */
    for (n = 0; n <= 80; n++) {
        size_t so, doff;
        for (so = 0; so < 8; so++) {
            for (doff = 0; doff < 8; doff++) {
                unsigned char src[96], dst[104];
                for (k = 0; k < sizeof src; k++) src[k] = (unsigned char)(k * 7 + 1);
                memset(dst, 0xEE, sizeof dst);
                COPY(dst + 8 + doff, src + so, n);
                for (k = 0; k < sizeof dst; k++) {
                    int inside = k >= 8 + doff && k < 8 + doff + n;
                    unsigned char want = inside ? src[so + k - 8 - doff] : 0xEE;
                    if (dst[k] != want && failures++ < 10)
                        printf("copy of %lu bytes (src +%lu, dst +%lu): byte %lu is %02x, want %02x\n",
                               (unsigned long)n, (unsigned long)so, (unsigned long)doff, (unsigned long)k, dst[k],
                               want);
                }
                checks++;
            }
        }
    }
    /* Long copies at every distance (destination - source) modulo 4 KiB from 0 to 70, and
       a few others: 1-31 take the runtime's block copy (rep movsb would alias), the rest
       memcpy. Lengths around the 2 KiB threshold and the 64-byte blocks. */
    {
        static const size_t lens[] = {33, 2048, 2049, 2111, 2112, 4096, 4097, 4159, 20000, 65536 + 13};
        static const size_t far[] = {2048, 4064, 4095};
        size_t li, dk;
        for (li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (dk = 0; dk < 71 + sizeof far / sizeof far[0]; dk++) {
                size_t len = lens[li], dist = dk < 71 ? dk : far[dk - 71];
                unsigned char *sb = (unsigned char *)malloc(len + 8192), *db = (unsigned char *)malloc(len + 8192 + 16);
                unsigned char *s, *d;
                if (!sb || !db) return 2;
                s = sb + 64 + (dk % 7);
                /* d - s == dist (mod 4096), with 8 guard bytes before d */
                d = db + 8 + (((uintptr_t)s + dist - (uintptr_t)(db + 8)) & 4095);
                for (k = 0; k < len; k++) s[k] = (unsigned char)(k * 13 + 5 + (k >> 8));
                memset(db, 0xEE, len + 8192 + 16);
                COPY(d, s, len);
                for (k = 0; k < len + 16; k++) {
                    unsigned char got = d[(long)k - 8], want = k >= 8 && k < len + 8 ? s[k - 8] : 0xEE;
                    if (got != want && failures++ < 10)
                        printf("long copy of %lu bytes at distance %lu: byte %ld is %02x, want %02x\n",
                               (unsigned long)len, (unsigned long)dist, (long)k - 8, got, want);
                }
                checks++;
                free(sb);
                free(db);
            }
        }
    }
    printf("checks %lu failures %d\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
"#;

/// C only: every string the UTF-8 check sees is also read by `wl_rd_str` as a view, as
/// an owned copy (the fused check-and-copy path), as an owned copy into a fixed arena
/// one byte too small, and as a view followed by 16 bytes of 0xFF (a check that looked
/// past the string would see them); each must agree with `wl_utf8_check` (status, error offset,
/// bytes, NUL terminator, cursor). A disagreement returns an impossible index, which the
/// caller reports as a failure.
const C_READ_STR: &str = r#"
static size_t check_read_str(const unsigned char *s, size_t n) {
    size_t bad = wl_utf8_check(s, n);
    uint8_t *exact = (uint8_t *)malloc(n + 4), *more = (uint8_t *)malloc(n + 4 + 16);
    unsigned char *small = (unsigned char *)malloc(n ? n : 1);
    int mode, ok = 1;
    wl_put_u32(more, (uint32_t)n);
    if (n) memcpy(more + 4, s, n);
    memcpy(exact, more, n + 4);
    memset(more + 4 + n, 0xFF, 16); /* not UTF-8: must not count */
    for (mode = 0; mode < 4; mode++) {
        const uint8_t *in = mode == 3 ? more : exact;
        wl_reader r;
        wl_error e;
        wl_arena a;
        wl_str out = {NULL, 0};
        wl_status st;
        if (mode == 2) wl_arena_init(&a, small, n);
        else wl_arena_init_heap(&a);
        wl_reader_init(&r, in, n + 4 + (mode == 3 ? 16 : 0), &a, mode == 1 || mode == 2, &e);
        st = wl_rd_str(&r, 4, &out);
        if (bad != n) {
            ok &= st == WL_ERR_UTF8 && e.status == WL_ERR_UTF8 && e.offset == 4 + bad;
        } else if (mode == 2) {
            ok &= st == WL_ERR_NO_MEMORY && e.status == WL_ERR_NO_MEMORY && e.offset == 4 && e.value == n + 1;
        } else {
            ok &= st == WL_OK && out.len == n && r.at == n + 4 && (n == 0 || memcmp(out.ptr, s, n) == 0);
            ok &= mode == 0 || mode == 3 ? out.ptr == (const char *)in + 4
                                         : out.ptr != (const char *)in + 4 && out.ptr[n] == 0;
        }
        wl_arena_free(&a);
    }
    free(small);
    free(more);
    free(exact);
    return ok ? bad : (size_t)-1;
}
"#;

fn build_and_run(compiler: &str, lang_args: &[&str], source: &Path, include: &Path, exe: &Path) {
    run(
        Command::new(compiler)
            .args(lang_args)
            .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-g"])
            .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
            .arg("-I")
            .arg(include)
            .arg(source)
            .arg("-o")
            .arg(exe),
        &format!("compiling {} with {compiler}", source.display()),
    );
    let out = run(&mut Command::new(exe), &format!("{} ({compiler})", exe.display()));
    assert!(out.contains("failures 0"), "{compiler}: unexpected output:\n{out}");
}

#[test]
fn c_runtime_utf8_check_and_short_copies_match_the_reference() {
    let root = workspace();
    // Removed with its contents when `tmp` drops (also when the test fails).
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-fast-paths-c-")
        .tempdir()
        .expect("temp dir");
    let src = tmp.path().join("fast_paths.c");
    std::fs::write(
        &src,
        format!(
            "#include \"wirelens.h\"\n{C_READ_STR}\n#define CHECK_UTF8(s, n) check_read_str(s, n)\n\
             #define COPY(d, s, n) wl_copy(d, s, n)\n{PROGRAM}"
        ),
    )
    .expect("write");
    for (var, cc) in [("WIRELENS_GCC", "gcc"), ("WIRELENS_CLANG", "clang")] {
        let cc = compiler(var, cc);
        let exe = tmp.path().join(format!("fast_paths_{cc}"));
        build_and_run(&cc, &["-std=c11"], &src, &root.join("runtime/c"), &exe);
    }
}

/// C++ only: every string the UTF-8 check sees is also read by `Reader::str32` and
/// `Reader::str16` as a view, from an exactly sized heap copy of prefix + bytes (ASan sees
/// a load outside it); each must agree with `utf8_valid_up_to` (success, view, cursor, or
/// invalid_utf8 at the first bad byte). A disagreement returns an impossible index.
const CPP_READ_STR: &str = r#"
template <class P>
static bool read_str_agrees(const unsigned char *s, size_t n, size_t bad) {
    uint8_t *in = static_cast<uint8_t *>(std::malloc(sizeof(P) + n));
    wirelens::store_le(in, static_cast<P>(n));
    if (n) std::memcpy(in + sizeof(P), s, n);
    wirelens::Reader r(in, sizeof(P) + n);
    std::string_view out;
    const bool ok = sizeof(P) == 4 ? r.str32(out) : r.str16(out);
    bool agrees;
    if (bad != n) {
        agrees = !ok && r.error().kind == wirelens::ErrorKind::invalid_utf8 && r.error().offset == sizeof(P) + bad;
    } else {
        agrees = ok && out.size() == n && out.data() == reinterpret_cast<const char *>(in) + sizeof(P) &&
                 r.position() == sizeof(P) + n;
    }
    std::free(in);
    return agrees;
}
/* A Reader over no bytes (null, 0): reading nothing succeeds (the Reader assumes its
   cursor is never null; UBSan reports it if that is false), reading a byte is an unexpected end. */
static bool empty_reader_ok() {
    wirelens::Reader r(nullptr, 0);
    const bool none = r.fixed(0) != nullptr;
    return none && r.fixed(1) == nullptr && r.error().kind == wirelens::ErrorKind::unexpected_end;
}
static const bool empty_reader = empty_reader_ok();
/* A []bool of every length 0-40 read by prims32 from an exactly sized input: all 00/01
   bytes decode to the same bools; one byte of 02, 10, 80 or FF at any position fails with
   invalid_bool at its offset (the check tests 8 or 4+4 overlapping bytes at a time). */
static bool bools_ok() {
    static const uint8_t bad_bytes[] = {0x02, 0x10, 0x80, 0xFF};
    for (size_t n = 0; n <= 40; n++) {
        for (size_t at = 0; at <= n; at++) {
            for (uint8_t b : bad_bytes) {
                uint8_t *in = static_cast<uint8_t *>(std::malloc(4 + n));
                wirelens::store_le(in, static_cast<uint32_t>(n));
                for (size_t k = 0; k < n; k++) in[4 + k] = static_cast<uint8_t>((k * 7 + n) % 3 == 0);
                if (at < n) in[4 + at] = b;
                wirelens::Reader r(in, 4 + n);
                std::vector<bool> out;
                const bool ok = r.prims32(out);
                bool agrees = at < n ? !ok && r.error().kind == wirelens::ErrorKind::invalid_bool &&
                                           r.error().offset == 4 + at
                                     : ok && out.size() == n && r.position() == 4 + n;
                for (size_t k = 0; agrees && at == n && k < n; k++) agrees = out[k] == (in[4 + k] == 1);
                std::free(in);
                if (!agrees) {
                    printf("bools: length %lu, byte %02x at %lu disagrees\n", (unsigned long)n, b, (unsigned long)at);
                    return false;
                }
                if (at == n) break;
            }
        }
    }
    return true;
}
static const bool bools = bools_ok();
static size_t check_read_str(const unsigned char *s, size_t n) {
    const size_t bad = wirelens::utf8_valid_up_to(s, n);
    return empty_reader && bools && read_str_agrees<uint32_t>(s, n, bad) && read_str_agrees<uint16_t>(s, n, bad) ? bad
                                                                                                        : (size_t)-1;
}
"#;

#[test]
fn cpp_runtime_utf8_check_and_short_copies_match_the_reference() {
    let root = workspace();
    let tmp = tempfile::Builder::new()
        .prefix("wirelens-fast-paths-cpp-")
        .tempdir()
        .expect("temp dir");
    let src = tmp.path().join("fast_paths.cpp");
    // The short copies (the Writer's and CompactString's) are for n <= 32; longer runs
    // are one memcpy, as in Writer::raw.
    std::fs::write(
        &src,
        format!(
            "#include \"wirelens.hpp\"\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n\
             {CPP_READ_STR}\n#define CHECK_UTF8(s, n) check_read_str(s, n)\n\
             #define COPY(d, s, n) wirelens::detail::copy_array(d, s, n)\n\
             {PROGRAM}"
        ),
    )
    .expect("write");
    for (var, cxx) in [("WIRELENS_GXX", "g++"), ("WIRELENS_CLANGXX", "clang++")] {
        let cxx = compiler(var, cxx);
        let exe = tmp.path().join(format!("fast_paths_{cxx}"));
        build_and_run(&cxx, &["-std=c++17"], &src, &root.join("runtime/cpp"), &exe);
    }
}
