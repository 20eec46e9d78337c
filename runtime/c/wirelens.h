// wirelens.h — runtime of the C (C11) code that `wirelens gen --lang c` writes.
//
// One header, static inline functions only, no dependencies beyond the C standard
// library. Generated code includes it; applications use it for the types below.
//
//   wl_str          a string with a precomputed length (never NUL-scanned)
//   wl_<p>_array    an owned array of primitive p: { const T *ptr; size_t len; }
//   wl_<p>_view     a zero-copy array of primitive p: the little-endian wire bytes;
//                   read elements with wl_<p>_view_get / wl_<p>_view_copy
//   wl_<p>_opt      an optional primitive: { bool has; T value; }
//   wl_buf          a growable, reusable output buffer (malloc/realloc; wl_buf_free)
//   wl_arena        where decoders put strings and arrays: a caller-provided block
//                   (fails cleanly with WL_ERR_NO_MEMORY when full) or a malloc-backed
//                   chunked arena (wl_arena_init_heap, wl_arena_reset, wl_arena_free)
//   wl_status       the result of every encode/decode; wl_error adds the byte offset,
//                   the details and the value path (`plugins[3].name`)
//
// Primitives p: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 bool (and str: wl_str_array,
// wl_str_opt). Multi-byte values are loaded and stored with memcpy on little-endian
// hosts and byte by byte otherwise (WL_LITTLE_ENDIAN; define it to 0 to force the
// portable path) — never through pointer casts.
//
// Wire rules (spec §4): little-endian, no padding; SDP strings/arrays have a u32
// length prefix, ffire a u16 one (at most 65,535 bytes/elements: encoders refuse more).
// Decoders check every read, believe a count only if the bytes left can hold that many
// elements, accept only 00/01 for bool and presence bytes, validate UTF-8 and (unless
// a *_prefix variant is used) reject trailing bytes.

#ifndef WIRELENS_RUNTIME_H
#define WIRELENS_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

// Alignment of a type (C11 _Alignof; alignof when the header is used from C++).
#ifdef __cplusplus
#define WL_ALIGNOF(T) alignof(T)
#else
#define WL_ALIGNOF(T) _Alignof(T)
#endif

#ifndef WL_LITTLE_ENDIAN
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WL_LITTLE_ENDIAN 1
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64) || defined(_M_ARM))
#define WL_LITTLE_ENDIAN 1
#else
#define WL_LITTLE_ENDIAN 0
#endif
#endif

// Helpers kept out of line: WL__OUTLINE for large paths, WL__COLD for error paths (off
// the hot path, so the decoders' fast paths stay small). `unused`: a TU may not need them.
// WL__HOT: a small step that must be inlined into every generated reader (gcc -O2 left
// wl_rd_str out of line: a call and a 6-register prologue per string). WL__ELEM: the
// codec functions of a struct used only as the element of one array, inlined into its
// loop (the generator picks them; their tables still take their address).
#if defined(__GNUC__) || defined(__clang__)
#define WL__OUTLINE static __attribute__((noinline, unused))
#define WL__COLD static __attribute__((cold, noinline, unused))
#define WL__HOT static inline __attribute__((always_inline))
#define WL__ELEM static inline __attribute__((always_inline))
#else
#define WL__OUTLINE static inline
#define WL__COLD static inline
#define WL__HOT static inline
#define WL__ELEM static inline
#endif

// ---------------------------------------------------------------- status and errors

typedef enum wl_status {
    WL_OK = 0,
    WL_ERR_TRUNCATED,        // the input ends early: needs `value` bytes, `left` remain
    WL_ERR_COUNT,            // count `value` × at least `limit` bytes each > `left` bytes left
    WL_ERR_BOOL,             // a bool byte `value` other than 00/01
    WL_ERR_PRESENCE,         // a presence byte `value` other than 00/01
    WL_ERR_UTF8,             // a string that is not UTF-8 (offset: the first bad byte)
    WL_ERR_TRAILING,         // `left` bytes after the value
    WL_ERR_MAGIC,            // SDP message: the magic is not "SDP"
    WL_ERR_VERSION,          // SDP message: version byte `value` is not '2'
    WL_ERR_TYPE_ID,          // SDP message: type id `value`, expected `limit` (0: unknown id)
    WL_ERR_LENGTH,           // SDP message: header announces `value` bytes, payload is `left`
    WL_ERR_BUFFER_TOO_SMALL, // encode: needs `value` bytes, the buffer has `left`
    WL_ERR_TOO_LONG,         // encode: a string/array of `value` bytes/elements > `limit`
    WL_ERR_NO_MEMORY         // the arena is full or malloc failed (`value` bytes wanted)
} wl_status;

// Path segments kept per error (innermost first); deeper paths keep the innermost.
#define WL_PATH_MAX 24

typedef struct wl_path_seg {
    const char *field; // a field's JSON name (may be dotted: "rect.top"), or NULL:
    size_t index;      // an array index
} wl_path_seg;

typedef struct wl_error {
    wl_status status;
    size_t offset;  // decode: byte offset in the input; encode: 0
    uint64_t value; // details, see wl_status
    uint64_t limit;
    uint64_t left;
    unsigned depth;   // segments recorded in seg[]
    unsigned dropped; // outer segments that did not fit
    wl_path_seg seg[WL_PATH_MAX];
} wl_error;

static inline void wl_error_clear(wl_error *e) {
    e->status = WL_OK;
    e->offset = 0;
    e->value = e->limit = e->left = 0;
    e->depth = e->dropped = 0;
}

WL__COLD void wl__record(wl_error *e, wl_status s, size_t offset, uint64_t value, uint64_t limit, uint64_t left) {
    e->status = s;
    e->offset = offset;
    e->value = value;
    e->limit = limit;
    e->left = left;
    e->depth = e->dropped = 0;
}

// Records an error; returns its status. The recording is out of line (cold); the status
// stays visible to the caller's code (a compiler that sees `return s` knows the read failed).
static inline wl_status wl_fail(wl_error *e, wl_status s, size_t offset, uint64_t value, uint64_t limit,
                                uint64_t left) {
    wl__record(e, s, offset, value, limit, left);
    return s;
}

// Only on error paths: out of line, so the generated functions stay small.
WL__COLD void wl_err_push(wl_error *e, const char *field, size_t index) {
    if (e->depth < WL_PATH_MAX) {
        e->seg[e->depth].field = field;
        e->seg[e->depth].index = index;
        e->depth++;
    } else {
        e->dropped++;
    }
}

// Adds an enclosing field to the error's path; returns the error's status.
static inline wl_status wl_err_field(wl_error *e, const char *field) {
    wl_err_push(e, field, 0);
    return e->status;
}

// Adds an enclosing array index to the error's path; returns the error's status.
static inline wl_status wl_err_index(wl_error *e, size_t index) {
    wl_err_push(e, NULL, index);
    return e->status;
}

static inline const char *wl_status_name(wl_status s) {
    switch (s) {
    case WL_OK: return "ok";
    case WL_ERR_TRUNCATED: return "truncated input";
    case WL_ERR_COUNT: return "implausible count";
    case WL_ERR_BOOL: return "invalid bool byte";
    case WL_ERR_PRESENCE: return "invalid presence byte";
    case WL_ERR_UTF8: return "invalid UTF-8";
    case WL_ERR_TRAILING: return "trailing bytes";
    case WL_ERR_MAGIC: return "bad message magic";
    case WL_ERR_VERSION: return "unsupported message version";
    case WL_ERR_TYPE_ID: return "wrong message type id";
    case WL_ERR_LENGTH: return "message length mismatch";
    case WL_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case WL_ERR_TOO_LONG: return "string or array too long";
    case WL_ERR_NO_MEMORY: return "out of memory";
    }
    return "unknown status";
}

// Appends to buf[*at..cap) (always NUL-terminated when cap > 0).
static inline void wl__append(char *buf, size_t cap, size_t *at, const char *s) {
    size_t n = strlen(s);
    if (*at < cap) {
        size_t room = cap - *at - 1;
        memcpy(buf + *at, s, n < room ? n : room);
        buf[*at + (n < room ? n : room)] = '\0';
    }
    *at += n;
}

// Writes the value path (`plugins[3].name`, empty at the root) into buf; returns its
// full length (like snprintf).
static inline size_t wl_error_path(const wl_error *e, char *buf, size_t cap) {
    size_t at = 0;
    unsigned i;
    char num[32];
    if (cap > 0) buf[0] = '\0';
    if (e->dropped) wl__append(buf, cap, &at, "...");
    for (i = e->depth; i-- > 0;) {
        const wl_path_seg *s = &e->seg[i];
        if (s->field) {
            if (at > 0) wl__append(buf, cap, &at, ".");
            wl__append(buf, cap, &at, s->field);
        } else {
            snprintf(num, sizeof num, "[%llu]", (unsigned long long)s->index);
            wl__append(buf, cap, &at, num);
        }
    }
    return at;
}

// Writes a one-line description (`plugins[3].name: needs 4 byte(s) but only 2 are left
// (at byte offset 17)`) into buf; returns its full length.
static inline size_t wl_error_format(const wl_error *e, char *buf, size_t cap) {
    char path[256], what[160];
    size_t at = 0;
    unsigned long long v = (unsigned long long)e->value, l = (unsigned long long)e->limit,
                       left = (unsigned long long)e->left;
    if (cap > 0) buf[0] = '\0';
    wl_error_path(e, path, sizeof path);
    switch (e->status) {
    case WL_ERR_TRUNCATED: snprintf(what, sizeof what, "needs %llu byte(s) but only %llu are left", v, left); break;
    case WL_ERR_COUNT:
        snprintf(what, sizeof what, "count %llu x %llu byte(s) exceeds the %llu bytes left", v, l, left);
        break;
    case WL_ERR_BOOL: snprintf(what, sizeof what, "bool byte 0x%02llx; expected 00 or 01", v); break;
    case WL_ERR_PRESENCE: snprintf(what, sizeof what, "presence byte 0x%02llx; expected 00 or 01", v); break;
    case WL_ERR_TRAILING: snprintf(what, sizeof what, "%llu trailing byte(s) after the value", left); break;
    case WL_ERR_VERSION: snprintf(what, sizeof what, "unsupported message version 0x%02llx; expected '2'", v); break;
    case WL_ERR_TYPE_ID:
        if (l == 0) snprintf(what, sizeof what, "unknown message type id %llu", v);
        else snprintf(what, sizeof what, "message type id %llu; expected %llu", v, l);
        break;
    case WL_ERR_LENGTH:
        snprintf(what, sizeof what, "message header announces %llu payload bytes but found %llu", v, left);
        break;
    case WL_ERR_BUFFER_TOO_SMALL:
        snprintf(what, sizeof what, "buffer too small: the encoding needs %llu bytes, the buffer has %llu", v, left);
        break;
    case WL_ERR_TOO_LONG: snprintf(what, sizeof what, "length %llu exceeds the maximum %llu", v, l); break;
    case WL_ERR_NO_MEMORY: snprintf(what, sizeof what, "out of memory (wanted %llu bytes)", v); break;
    case WL_OK:
    case WL_ERR_UTF8:
    case WL_ERR_MAGIC:
    default: snprintf(what, sizeof what, "%s", wl_status_name(e->status)); break;
    }
    if (path[0]) {
        wl__append(buf, cap, &at, path);
        wl__append(buf, cap, &at, ": ");
    }
    wl__append(buf, cap, &at, what);
    if (e->status != WL_OK && e->status != WL_ERR_BUFFER_TOO_SMALL && e->status != WL_ERR_TOO_LONG &&
        e->status != WL_ERR_NO_MEMORY) {
        char off[48];
        snprintf(off, sizeof off, " (at byte offset %llu)", (unsigned long long)e->offset);
        wl__append(buf, cap, &at, off);
    }
    return at;
}

// ---------------------------------------------------------------- value types

typedef struct wl_str {
    const char *ptr; // not NUL-terminated in views; owned decodes add a NUL after len
    size_t len;      // bytes
} wl_str;

// A wl_str from a NUL-terminated C string (the one place that calls strlen).
static inline wl_str wl_str_from_cstr(const char *s) {
    wl_str r;
    r.ptr = s;
    r.len = s ? strlen(s) : 0;
    return r;
}

typedef struct wl_str_array {
    const wl_str *ptr;
    size_t len;
} wl_str_array;

typedef struct wl_str_opt {
    bool has;
    wl_str value;
} wl_str_opt;

static inline float wl_f32_from_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline double wl_f64_from_bits(uint64_t b) {
    double f;
    memcpy(&f, &b, 8);
    return f;
}

// ---------------------------------------------------------------- little-endian loads/stores

// Whether member m of struct type T lies d bytes after member first: generated code
// copies a run of fixed-size fields as one block when the C layout matches the wire.
#define WL_AT(T, first, m, d) (offsetof(T, m) - offsetof(T, first) == (d))

static inline uint8_t wl_get_u8(const uint8_t *p) { return p[0]; }
static inline void wl_put_u8(uint8_t *p, uint8_t v) { p[0] = v; }

static inline uint16_t wl_get_u16(const uint8_t *p) {
#if WL_LITTLE_ENDIAN
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
#else
    return (uint16_t)((unsigned)p[0] | (unsigned)p[1] << 8);
#endif
}

static inline uint32_t wl_get_u32(const uint8_t *p) {
#if WL_LITTLE_ENDIAN
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t wl_get_u64(const uint8_t *p) {
#if WL_LITTLE_ENDIAN
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    return (uint64_t)wl_get_u32(p) | (uint64_t)wl_get_u32(p + 4) << 32;
#endif
}

static inline void wl_put_u16(uint8_t *p, uint16_t v) {
#if WL_LITTLE_ENDIAN
    memcpy(p, &v, 2);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void wl_put_u32(uint8_t *p, uint32_t v) {
#if WL_LITTLE_ENDIAN
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void wl_put_u64(uint8_t *p, uint64_t v) {
#if WL_LITTLE_ENDIAN
    memcpy(p, &v, 8);
#else
    wl_put_u32(p, (uint32_t)v);
    wl_put_u32(p + 4, (uint32_t)(v >> 32));
#endif
}

// Signed and floating-point values travel as the bits of the unsigned type.
#define WL__BITCAST_IO(name, T, U, bits)                                                                            \
    static inline T wl_get_##name(const uint8_t *p) {                                                               \
        U u = wl_get_u##bits(p);                                                                                    \
        T v;                                                                                                        \
        memcpy(&v, &u, sizeof v);                                                                                   \
        return v;                                                                                                   \
    }                                                                                                               \
    static inline void wl_put_##name(uint8_t *p, T v) {                                                             \
        U u;                                                                                                        \
        memcpy(&u, &v, sizeof u);                                                                                   \
        wl_put_u##bits(p, u);                                                                                       \
    }

WL__BITCAST_IO(i8, int8_t, uint8_t, 8)
WL__BITCAST_IO(i16, int16_t, uint16_t, 16)
WL__BITCAST_IO(i32, int32_t, uint32_t, 32)
WL__BITCAST_IO(i64, int64_t, uint64_t, 64)
WL__BITCAST_IO(f32, float, uint32_t, 32)
WL__BITCAST_IO(f64, double, uint64_t, 64)

// Bools are stored as 00/01; decoders validate before calling wl_get_bool.
static inline bool wl_get_bool(const uint8_t *p) { return p[0] != 0; }
static inline void wl_put_bool(uint8_t *p, bool v) { p[0] = v ? 1 : 0; }

// ---------------------------------------------------------------- arena

// Heap chunks start with this header (aligned for any type).
typedef union wl__chunk {
    struct {
        union wl__chunk *next;
        size_t cap;
    } h;
    max_align_t align;
} wl__chunk;

typedef struct wl_arena {
    unsigned char *base; // current block
    size_t cap;
    size_t used;
    wl__chunk *chunks; // heap chunks, newest (largest) first
    bool heap;         // may malloc more chunks
} wl_arena;

// An arena over a caller-provided block: no allocation ever; decoding fails with
// WL_ERR_NO_MEMORY when the block is full.
static inline void wl_arena_init(wl_arena *a, void *mem, size_t cap) {
    a->base = (unsigned char *)mem;
    a->cap = mem ? cap : 0;
    a->used = 0;
    a->chunks = NULL;
    a->heap = false;
}

// A malloc-backed arena: grows in chunks (at least doubling); wl_arena_free releases it.
static inline void wl_arena_init_heap(wl_arena *a) {
    wl_arena_init(a, NULL, 0);
    a->heap = true;
}

// Forgets every allocation. A heap arena keeps its newest (largest) chunk, so a reset
// arena reused for similar messages allocates nothing.
static inline void wl_arena_reset(wl_arena *a) {
    if (a->chunks) {
        wl__chunk *c = a->chunks->h.next;
        while (c) {
            wl__chunk *next = c->h.next;
            free(c);
            c = next;
        }
        a->chunks->h.next = NULL;
        a->base = (unsigned char *)(a->chunks + 1);
        a->cap = a->chunks->h.cap;
    }
    a->used = 0;
}

static inline void wl_arena_free(wl_arena *a) {
    wl__chunk *c = a->chunks;
    while (c) {
        wl__chunk *next = c->h.next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
    if (a->heap) {
        a->base = NULL;
        a->cap = 0;
    }
    a->used = 0;
}

static inline void *wl_arena_alloc(wl_arena *a, size_t size, size_t align);

// wl_arena_alloc when the current block is full: a heap arena adds a chunk (out of
// line: rare, and it keeps the inlined fast path small).
WL__OUTLINE void *wl__arena_grow(wl_arena *a, size_t size, size_t align) {
    size_t want = a->chunks ? a->chunks->h.cap * 2 : 4096;
    wl__chunk *c;
    if (!a->heap) return NULL;
    if (size > SIZE_MAX / 2 - sizeof(wl__chunk) - align) return NULL;
    if (want < size + align) want = size + align;
    c = (wl__chunk *)malloc(sizeof(wl__chunk) + want);
    if (!c) return NULL;
    c->h.next = a->chunks;
    c->h.cap = want;
    a->chunks = c;
    a->base = (unsigned char *)(c + 1);
    a->cap = want;
    a->used = 0;
    return wl_arena_alloc(a, size, align);
}

// `size` bytes aligned to `align` (a power of two), or NULL when the arena is full.
static inline void *wl_arena_alloc(wl_arena *a, size_t size, size_t align) {
    if (!a) return NULL;
    if (a->base) {
        uintptr_t cur = (uintptr_t)(a->base + a->used);
        size_t pad = (size_t)((align - (cur & (align - 1))) & (align - 1));
        size_t room = a->cap - a->used;
        if (pad <= room && size <= room - pad) {
            void *p = a->base + a->used + pad;
            a->used += pad + size;
            return p;
        }
    }
    return wl__arena_grow(a, size, align);
}

// ---------------------------------------------------------------- long copies

// Whether a copy of n bytes from s to d would meet `rep movsb`'s page-aliasing slowdown:
// glibc up to 2.38 copies more than ~2 KiB with `rep movsb`, which AMD Zen 3/4 run 10-25x
// slower when the destination lies 1-15 bytes above the source modulo 4 KiB (glibc bug
// 30994; bench/codec-c/memcpy-offset). The window is taken as 1-31 bytes (at 16-31 the
// blocks are faster too). Only up to 1 MiB: above its L2 size (512 KiB-1 MiB) glibc copies
// on AMD without `rep movsb`, and where it still uses it (Intel, up to its non-temporal
// threshold) the blocks were 15-20 % slower than memcpy at 64 MiB, at any distance
// (bench/big/copy-probe.c; BENCHMARKS.md "Big messages").
static inline bool wl__rep_movsb_aliases(const void *d, const void *s, size_t n) {
    uintptr_t distance = ((uintptr_t)d - (uintptr_t)s) & 4095;
    return n > 2048 && n <= ((size_t)1 << 20) && distance - 1 < 31;
}

// Copies n >= 128 bytes in 64-byte blocks (vector moves, no `rep movsb`): a first block,
// then blocks whose stores start on a 64-byte line (none splits a line), then a last block
// overlapping the one before it. The empty asm keeps clang from turning the loop back into
// one memcpy call.
WL__OUTLINE void wl__copy_blocks(uint8_t *d, const uint8_t *s, size_t n) {
    size_t i = 64 - ((uintptr_t)d & 63);
    memcpy(d, s, 64);
    for (; n - i >= 64; i += 64) {
        memcpy(d + i, s + i, 64);
#if defined(__GNUC__)
        __asm__("" : "+r"(i));
#endif
    }
    memcpy(d + n - 64, s + n - 64, 64);
}

// memcpy of n > 32 bytes, in blocks where `rep movsb` would alias (wl__rep_movsb_aliases).
static inline void wl__copy_long(void *d, const void *s, size_t n) {
    if (wl__rep_movsb_aliases(d, s, n)) wl__copy_blocks((uint8_t *)d, (const uint8_t *)s, n);
    else memcpy(d, s, n);
}

// ---------------------------------------------------------------- output buffer

typedef struct wl_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} wl_buf;

static inline void wl_buf_init(wl_buf *b) {
    b->data = NULL;
    b->len = b->cap = 0;
}

// Makes room for `extra` more bytes (at least doubling); WL_ERR_NO_MEMORY leaves b as it was.
static inline wl_status wl_buf_reserve(wl_buf *b, size_t extra) {
    size_t want;
    uint8_t *p;
    if (b->cap - b->len >= extra) return WL_OK;
    if (extra > SIZE_MAX - b->len) return WL_ERR_NO_MEMORY;
    want = b->cap > SIZE_MAX / 2 ? SIZE_MAX : b->cap * 2;
    if (want < b->len + extra) want = b->len + extra;
    if (want < 64) want = 64;
    p = (uint8_t *)realloc(b->data, want);
    if (!p) return WL_ERR_NO_MEMORY;
    b->data = p;
    b->cap = want;
    return WL_OK;
}

static inline wl_status wl_buf_append(wl_buf *b, const void *data, size_t n) {
    wl_status s = wl_buf_reserve(b, n);
    if (s != WL_OK) return s;
    if (n) wl__copy_long(b->data + b->len, data, n);
    b->len += n;
    return WL_OK;
}

// Empties the buffer, keeping its memory for the next encode.
static inline void wl_buf_clear(wl_buf *b) { b->len = 0; }

static inline void wl_buf_free(wl_buf *b) {
    free(b->data);
    wl_buf_init(b);
}

// ---------------------------------------------------------------- sizes (encoders)

// Saturating arithmetic: an absurd size becomes SIZE_MAX, which no buffer holds.
static inline size_t wl_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static inline size_t wl_mul(size_t a, size_t b) { return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

// Largest length a prefix of `prefix` bytes (2: ffire, 4: SDP) may announce.
static inline uint64_t wl_max_len(unsigned prefix) { return prefix == 2 ? 0xFFFFu : 0xFFFFFFFFu; }

static inline bool wl_len_ok(size_t len, unsigned prefix) { return (uint64_t)len <= wl_max_len(prefix); }

// Records WL_ERR_TOO_LONG for `field` (may be NULL); returns 0 (the size measured).
static inline size_t wl_too_long(wl_error *e, size_t len, unsigned prefix, const char *field) {
    wl_fail(e, WL_ERR_TOO_LONG, 0, len, wl_max_len(prefix), 0);
    if (field) wl_err_field(e, field);
    return 0;
}

static inline uint8_t *wl_put_len(uint8_t *p, unsigned prefix, size_t n) {
    if (prefix == 2) {
        wl_put_u16(p, (uint16_t)n);
        return p + 2;
    }
    wl_put_u32(p, (uint32_t)n);
    return p + 4;
}

// Copies n bytes to p. Runs up to 32 bytes (most strings) are two overlapping
// fixed-width copies that stay inside [p, p + n): no libc call per short string.
#define WL__COPY_PAIR(W)                                                                                            \
    do {                                                                                                            \
        uint8_t a_[W], b_[W];                                                                                       \
        memcpy(a_, s, W);                                                                                           \
        memcpy(b_, s + n - W, W);                                                                                   \
        memcpy(d, a_, W);                                                                                           \
        memcpy(d + n - W, b_, W);                                                                                   \
    } while (0)

static inline void wl_copy(void *dst, const void *src, size_t n) {
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if (n > 32) wl__copy_long(d, s, n);
    else if (n >= 16) WL__COPY_PAIR(16);
    else if (n >= 8) WL__COPY_PAIR(8);
    else if (n >= 4) WL__COPY_PAIR(4);
    else if (n >= 2) WL__COPY_PAIR(2);
    else if (n == 1) d[0] = s[0];
}

static inline uint8_t *wl_put_bytes(uint8_t *p, const void *src, size_t n) {
    wl_copy(p, src, n);
    return p + n;
}

static inline uint8_t *wl_put_str(uint8_t *p, unsigned prefix, wl_str s) {
    p = wl_put_len(p, prefix, s.len);
    return wl_put_bytes(p, s.ptr, s.len);
}

// ---------------------------------------------------------------- reader (decoders)

typedef struct wl_reader {
    const uint8_t *buf;
    size_t len;
    size_t at;
    wl_arena *arena;
    wl_error *err;
    bool copy; // owned decode: copy strings into the arena (else they point into buf)
} wl_reader;

WL__COLD void wl__rd_end(wl_reader *r, size_t need, const char *field) {
    wl__record(r->err, WL_ERR_TRUNCATED, r->at, need, 0, r->len - r->at);
    if (field) wl_err_field(r->err, field);
}

static inline wl_status wl_rd_end(wl_reader *r, size_t need, const char *field) {
    wl__rd_end(r, need, field);
    return WL_ERR_TRUNCATED;
}

// A bool byte `b` at input offset `at` that is neither 00 nor 01.
WL__COLD void wl__bad_bool(wl_error *e, size_t at, uint8_t b, const char *field) {
    wl__record(e, WL_ERR_BOOL, at, b, 0, 0);
    if (field) wl_err_field(e, field);
}

static inline wl_status wl_bad_bool(wl_error *e, size_t at, uint8_t b, const char *field) {
    wl__bad_bool(e, at, b, field);
    return WL_ERR_BOOL;
}

static inline wl_status wl_rd_presence(wl_reader *r, bool *has) {
    uint8_t b;
    if (r->at >= r->len) return wl_rd_end(r, 1, NULL);
    b = r->buf[r->at];
    if (b > 1) return wl_fail(r->err, WL_ERR_PRESENCE, r->at, b, 0, 0);
    r->at++;
    *has = b != 0;
    return WL_OK;
}

// A length/count prefix (2 or 4 bytes), believed only if `n × min_each` bytes remain.
static inline wl_status wl_rd_count(wl_reader *r, unsigned prefix, size_t min_each, size_t *n) {
    uint64_t count;
    size_t left;
    if (r->len - r->at < prefix) return wl_rd_end(r, prefix, NULL);
    count = prefix == 2 ? wl_get_u16(r->buf + r->at) : wl_get_u32(r->buf + r->at);
    left = r->len - r->at - prefix;
    if (min_each == 0) min_each = 1;
    if (count > (uint64_t)left / min_each) return wl_fail(r->err, WL_ERR_COUNT, r->at, count, min_each, left);
    r->at += prefix;
    *n = (size_t)count;
    return WL_OK;
}

// Room for n elements of `size` bytes in the arena, or NULL (WL_ERR_NO_MEMORY). n > 0.
static inline void *wl_rd_alloc(wl_reader *r, size_t n, size_t size, size_t align) {
    void *p = size > SIZE_MAX / n ? NULL : wl_arena_alloc(r->arena, n * size, align);
    if (!p) wl_fail(r->err, WL_ERR_NO_MEMORY, r->at, wl_mul(n, size), 0, 0);
    return p;
}

// As wl_rd_alloc, zero-filled: for arrays whose elements a read may leave partly
// unwritten (an absent optional's payload); the generator picks one or the other.
static inline void *wl_rd_alloc_zero(wl_reader *r, size_t n, size_t size, size_t align) {
    void *p = wl_rd_alloc(r, n, size, align);
    if (p) memset(p, 0, n * size);
    return p;
}


// The full UTF-8 check from byte i on (see wl_utf8_check); out of line so the ASCII
// fast path in front of it stays small enough to inline.
WL__OUTLINE size_t wl__utf8_check_from(const uint8_t *s, size_t n, size_t i) {
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            uint64_t w;
            while (n - i >= 8) {
                memcpy(&w, s + i, 8);
                if (w & UINT64_C(0x8080808080808080)) break;
                i += 8;
            }
            while (i < n && s[i] < 0x80) i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (n - i < 2 || (s[i + 1] & 0xC0) != 0x80) return i;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            uint8_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
            if (n - i < 3 || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80) return i;
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            uint8_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
            if (n - i < 4 || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return i;
            i += 4;
        } else {
            return i;
        }
    }
    return n;
}

// True when s[0..n) is all ASCII: 16 bytes at a time, the tail and short strings as
// two overlapping loads (three bytes below 4), so no per-byte loop and no libc call.
static inline bool wl__ascii(const uint8_t *s, size_t n) {
    const uint64_t high = UINT64_C(0x8080808080808080);
    uint64_t a, b, acc = 0;
    size_t i = 0;
    if (n < 4) return n == 0 || ((s[0] | s[n >> 1] | s[n - 1]) & 0x80) == 0;
    if (n < 8) {
        uint32_t c, d;
        memcpy(&c, s, 4);
        memcpy(&d, s + n - 4, 4);
        return ((c | d) & 0x80808080u) == 0;
    }
    if (n >= 16) {
        for (; n - i > 16; i += 16) {
            memcpy(&a, s + i, 8);
            memcpy(&b, s + i + 8, 8);
            acc |= a | b;
        }
        memcpy(&a, s + n - 16, 8); // the last 16 bytes, overlapping what the loop saw
    } else {
        memcpy(&a, s, 8);
    }
    memcpy(&b, s + n - 8, 8);
    return ((acc | a | b) & high) == 0;
}

// The index of the first byte of the first invalid UTF-8 sequence, or n. ASCII is
// checked first (wl__ascii); any other byte hands over to the full check.
static inline size_t wl_utf8_check(const uint8_t *s, size_t n) {
    return wl__ascii(s, n) ? n : wl__utf8_check_from(s, n, 0);
}

// A string at p (the input at r->at) of n bytes that is not all ASCII: the full check.
WL__OUTLINE wl_status wl__rd_utf8(wl_reader *r, const uint8_t *p, size_t n) {
    size_t bad = wl__utf8_check_from(p, n, 0);
    return bad == n ? WL_OK : wl_fail(r->err, WL_ERR_UTF8, r->at + bad, 0, 0, 0);
}

// The owned half of wl_rd_str: the n bytes at p (the input at r->at) checked and copied
// into the arena in one pass (each word loaded once), NUL-terminated. Out of line: it is
// larger than the view's half and pays an allocation anyway.
WL__OUTLINE wl_status wl__rd_str_copy(wl_reader *r, const uint8_t *p, size_t n, wl_str *out) {
    const uint64_t high = UINT64_C(0x8080808080808080);
    uint64_t acc;
    char *d = n < SIZE_MAX ? (char *)wl_arena_alloc(r->arena, n + 1, 1) : NULL;
    if (!d) {
        // Invalid UTF-8 is reported before a full arena, as when checking came first.
        if (!wl__ascii(p, n) && wl__rd_utf8(r, p, n) != WL_OK) return WL_ERR_UTF8;
        return wl_fail(r->err, WL_ERR_NO_MEMORY, r->at, n < SIZE_MAX ? n + 1 : SIZE_MAX, 0, 0);
    }
    if (n <= 16) {
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, p, 8);
            memcpy(&b, p + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
            acc = a | b;
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, p, 4);
            memcpy(&b, p + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
            acc = a | b;
        } else if (n > 0) {
            uint8_t a = p[0], b = p[n >> 1], c = p[n - 1];
            d[0] = (char)a;
            d[n >> 1] = (char)b;
            d[n - 1] = (char)c;
            acc = a | b | c;
        } else {
            acc = 0;
        }
        acc &= high;
    } else if (n <= 32) {
        uint64_t a, b, c, e;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        memcpy(&c, p + n - 16, 8);
        memcpy(&e, p + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + 8, &b, 8);
        memcpy(d + n - 16, &c, 8);
        memcpy(d + n - 8, &e, 8);
        acc = (a | b | c | e) & high;
    } else {
        acc = !wl__ascii(p, n);
        wl__copy_long(d, p, n);
    }
    if (acc && wl__rd_utf8(r, p, n) != WL_OK) return WL_ERR_UTF8;
    d[n] = '\0';
    out->ptr = d;
    out->len = n;
    r->at += n;
    return WL_OK;
}

// A string: length prefix + UTF-8. Owned decodes (r->copy) copy it into the arena,
// NUL-terminated; views point into the input.
WL__HOT wl_status wl_rd_str(wl_reader *r, unsigned prefix, wl_str *out) {
    size_t n;
    const uint8_t *p;
    wl_status s = wl_rd_count(r, prefix, 1, &n);
    if (s != WL_OK) return s;
    p = r->buf + r->at;
    if (r->copy) return wl__rd_str_copy(r, p, n, out);
    if (!wl__ascii(p, n) && wl__rd_utf8(r, p, n) != WL_OK) return WL_ERR_UTF8;
    out->ptr = (const char *)p;
    out->len = n;
    r->at += n;
    return WL_OK;
}

// Starts a decode of buf[0..len) (buf may be NULL when len is 0). copy: owned decode.
static inline void wl_reader_init(wl_reader *r, const uint8_t *buf, size_t len, wl_arena *arena, bool copy,
                                  wl_error *err) {
    static const uint8_t empty[1] = {0};
    r->buf = buf ? buf : empty;
    r->len = buf ? len : 0;
    r->at = 0;
    r->arena = arena;
    r->err = err;
    r->copy = copy;
    wl_error_clear(err);
}

// Ends a decode: with `used`, reports the bytes used; without, trailing bytes are an error.
static inline wl_status wl_reader_finish(wl_reader *r, size_t *used) {
    if (used) {
        *used = r->at;
        return WL_OK;
    }
    if (r->at != r->len) return wl_fail(r->err, WL_ERR_TRAILING, r->at, 0, 0, r->len - r->at);
    return WL_OK;
}

// ---------------------------------------------------------------- primitive arrays and options

// Element checks run before any element of a primitive array is used: bools must be
// 00 or 01 (an array element's error names its index), other primitives take any bits.
static inline wl_status wl__check_any(wl_reader *r, size_t n, bool array) {
    (void)r;
    (void)n;
    (void)array;
    return WL_OK;
}

static inline wl_status wl__check_bool(wl_reader *r, size_t n, bool array) {
    size_t i;
    const uint8_t *p = r->buf + r->at;
    for (i = 0; i < n; i++) {
        if (p[i] > 1) {
            wl_fail(r->err, WL_ERR_BOOL, r->at + i, p[i], 0, 0);
            if (array) wl_err_index(r->err, i);
            return WL_ERR_BOOL;
        }
    }
    return WL_OK;
}

// Per primitive p with C type T and wire size N:
//   wl_p_array { const T *ptr; size_t len; }        owned (host order, aligned)
//   wl_p_view  { const uint8_t *ptr; size_t len; }  zero-copy: the wire bytes, len = elements
//   wl_p_opt   { bool has; T value; }
//   T wl_p_view_get(wl_p_view v, size_t i); void wl_p_view_copy(wl_p_view v, T *dst)
//   wl_get_ps / wl_put_ps: bulk conversions (one memcpy on little-endian hosts)
//   wl_rd_p, wl_rd_p_array, wl_rd_p_view: reader steps; wl_put_p_array, wl_put_p_view: writers
#define WL__PRIM(p, T, N, CHECK, BULK)                                                                              \
    typedef struct wl_##p##_array {                                                                                 \
        const T *ptr;                                                                                               \
        size_t len;                                                                                                 \
    } wl_##p##_array;                                                                                               \
    typedef struct wl_##p##_view {                                                                                  \
        const uint8_t *ptr;                                                                                         \
        size_t len;                                                                                                 \
    } wl_##p##_view;                                                                                                \
    typedef struct wl_##p##_opt {                                                                                   \
        bool has;                                                                                                   \
        T value;                                                                                                    \
    } wl_##p##_opt;                                                                                                 \
    static inline T wl_##p##_view_get(wl_##p##_view v, size_t i) { return wl_get_##p(v.ptr + (N) * i); }            \
    static inline void wl_get_##p##s(T *dst, const uint8_t *src, size_t n) {                                        \
        size_t i;                                                                                                   \
        if ((BULK) && (N) == sizeof(T)) {                                                                           \
            if (n) wl__copy_long(dst, src, n * (N));                                                                \
            return;                                                                                                 \
        }                                                                                                           \
        for (i = 0; i < n; i++) dst[i] = wl_get_##p(src + (N) * i);                                                 \
    }                                                                                                               \
    static inline void wl_put_##p##s(uint8_t *dst, const T *src, size_t n) {                                        \
        size_t i;                                                                                                   \
        if ((BULK) && (N) == sizeof(T)) {                                                                           \
            if (n) wl__copy_long(dst, src, n * (N));                                                                \
            return;                                                                                                 \
        }                                                                                                           \
        for (i = 0; i < n; i++) wl_put_##p(dst + (N) * i, src[i]);                                                  \
    }                                                                                                               \
    static inline void wl_##p##_view_copy(wl_##p##_view v, T *dst) { wl_get_##p##s(dst, v.ptr, v.len); }            \
    static inline uint8_t *wl_put_##p##_array(uint8_t *dst, unsigned prefix, wl_##p##_array a) {                    \
        dst = wl_put_len(dst, prefix, a.len);                                                                       \
        if (a.len) wl_put_##p##s(dst, a.ptr, a.len);                                                                \
        return dst + (N) * a.len;                                                                                   \
    }                                                                                                               \
    static inline uint8_t *wl_put_##p##_view(uint8_t *dst, unsigned prefix, wl_##p##_view a) {                      \
        dst = wl_put_len(dst, prefix, a.len);                                                                       \
        return wl_put_bytes(dst, a.ptr, (N) * a.len);                                                               \
    }                                                                                                               \
    static inline wl_status wl_rd_##p(wl_reader *r, T *out) {                                                       \
        wl_status s;                                                                                                \
        if (r->len - r->at < (N)) return wl_rd_end(r, (N), NULL);                                                   \
        if ((s = CHECK(r, 1, false)) != WL_OK) return s;                                                            \
        *out = wl_get_##p(r->buf + r->at);                                                                          \
        r->at += (N);                                                                                               \
        return WL_OK;                                                                                               \
    }                                                                                                               \
    static inline wl_status wl_rd_##p##_view(wl_reader *r, unsigned prefix, wl_##p##_view *out) {                   \
        size_t n;                                                                                                   \
        wl_status s = wl_rd_count(r, prefix, (N), &n);                                                              \
        if (s != WL_OK) return s;                                                                                   \
        if ((s = CHECK(r, n, true)) != WL_OK) return s;                                                             \
        out->ptr = r->buf + r->at;                                                                                  \
        out->len = n;                                                                                               \
        r->at += (N) * n;                                                                                           \
        return WL_OK;                                                                                               \
    }                                                                                                               \
    static inline wl_status wl_rd_##p##_array(wl_reader *r, unsigned prefix, wl_##p##_array *out) {                 \
        wl_##p##_view v = {NULL, 0};                                                                                \
        T *d;                                                                                                       \
        wl_status s = wl_rd_##p##_view(r, prefix, &v);                                                              \
        if (s != WL_OK) return s;                                                                                   \
        out->ptr = NULL;                                                                                            \
        out->len = v.len;                                                                                           \
        if (v.len == 0) return WL_OK;                                                                               \
        d = (T *)wl_rd_alloc(r, v.len, sizeof(T), WL_ALIGNOF(T));                                                   \
        if (!d) return WL_ERR_NO_MEMORY;                                                                            \
        wl_get_##p##s(d, v.ptr, v.len);                                                                             \
        out->ptr = d;                                                                                               \
        return WL_OK;                                                                                               \
    }

WL__PRIM(u8, uint8_t, 1, wl__check_any, 1)
WL__PRIM(u16, uint16_t, 2, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(u32, uint32_t, 4, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(u64, uint64_t, 8, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(i8, int8_t, 1, wl__check_any, 1)
WL__PRIM(i16, int16_t, 2, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(i32, int32_t, 4, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(i64, int64_t, 8, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(f32, float, 4, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(f64, double, 8, wl__check_any, WL_LITTLE_ENDIAN)
WL__PRIM(bool, bool, 1, wl__check_bool, 0)

// ---------------------------------------------------------------- SDP message header

// "SDP2" · u16 type id · u32 payload length.
#define WL_SDP_HEADER_LEN 10

static inline uint8_t *wl_sdp_put_header(uint8_t *p, uint16_t type_id, size_t payload_len) {
    p[0] = 'S';
    p[1] = 'D';
    p[2] = 'P';
    p[3] = '2';
    wl_put_u16(p + 4, type_id);
    wl_put_u32(p + 6, (uint32_t)payload_len);
    return p + WL_SDP_HEADER_LEN;
}

// Reads and checks a header at r's start: magic, version '2', the type id (when
// `expected` is not 0) and a payload length that fits the input. On success r is
// positioned at the payload and limited to it; *type_id gets the id.
static inline wl_status wl_sdp_open(wl_reader *r, uint16_t expected, uint16_t *type_id) {
    uint32_t n;
    uint16_t id;
    if (r->len < 3) return wl_rd_end(r, 3, NULL);
    if (r->buf[0] != 'S' || r->buf[1] != 'D' || r->buf[2] != 'P') return wl_fail(r->err, WL_ERR_MAGIC, 0, 0, 0, 0);
    r->at = 3;
    if (r->len < 4) return wl_rd_end(r, 1, NULL);
    if (r->buf[3] != '2') return wl_fail(r->err, WL_ERR_VERSION, 3, r->buf[3], 0, 0);
    r->at = 4;
    if (r->len < 6) return wl_rd_end(r, 2, NULL);
    id = wl_get_u16(r->buf + 4);
    r->at = 6;
    if (r->len < WL_SDP_HEADER_LEN) return wl_rd_end(r, 4, NULL);
    n = wl_get_u32(r->buf + 6);
    if (n > r->len - WL_SDP_HEADER_LEN)
        return wl_fail(r->err, WL_ERR_LENGTH, 6, n, 0, r->len - WL_SDP_HEADER_LEN);
    if (expected != 0 && id != expected) return wl_fail(r->err, WL_ERR_TYPE_ID, 4, id, expected, 0);
    r->at = WL_SDP_HEADER_LEN;
    r->len = WL_SDP_HEADER_LEN + (size_t)n;
    *type_id = id;
    return WL_OK;
}

// Ends a message decode: the payload used exactly the announced bytes.
static inline wl_status wl_sdp_close(wl_reader *r) {
    if (r->at != r->len)
        return wl_fail(r->err, WL_ERR_LENGTH, r->at, r->len - WL_SDP_HEADER_LEN, 0, r->at - WL_SDP_HEADER_LEN);
    return WL_OK;
}

// ---------------------------------------------------------------- generic entry points

// Generated code describes each value type T by a table, T_type (owned values) and
// T_view_type (views): its measure, write and read functions, the size of its C type,
// its SDP message type id and whether decoding copies strings. The functions below
// are the whole encode/decode API over such a table; the generated T_encode, T_decode…
// are macros that call them with T's table (and check the value's pointer type).
typedef size_t (*wl_measure_fn)(const void *value, wl_error *err);
typedef uint8_t *(*wl_write_fn)(const void *value, uint8_t *out);
typedef wl_status (*wl_read_fn)(wl_reader *r, void *out);

typedef struct wl_type {
    wl_measure_fn measure; // exact size (records WL_ERR_TOO_LONG and returns 0 on failure)
    wl_write_fn write;     // writes the encoding (the caller made room); returns the end
    wl_read_fn read;       // reads one value at the reader's position
    size_t size;           // sizeof the C type
    uint16_t message_id;   // SDP message type id, 0 when not a message
    bool copy;             // owned (strings copied into the arena), else a view
} wl_type;

// `ptr`, checked to convert to `T` (a compile-time type check in the generated macros).
#ifdef __cplusplus
#define WL_TYPED(T, ptr) (static_cast<T>(ptr))
#else
#define WL_TYPED(T, ptr) (1 ? (ptr) : (T)0)
#endif

// The exact encoded size, or 0 when the value cannot be encoded (a string or array
// longer than its length prefix allows).
static inline size_t wl_size(const wl_type *t, const void *v) {
    wl_error e;
    size_t n;
    wl_error_clear(&e);
    n = t->measure(v, &e);
    return e.status == WL_OK && n != SIZE_MAX ? n : 0;
}

static inline wl_status wl__measure(const wl_type *t, const void *v, size_t header, size_t *n, wl_error *e) {
    wl_error_clear(e);
    *n = t->measure(v, e);
    if (e->status != WL_OK) return e->status;
    if (header && (uint64_t)*n > 0xFFFFFFFFu) return wl_fail(e, WL_ERR_TOO_LONG, 0, *n, 0xFFFFFFFFu, 0);
    if (*n == SIZE_MAX || *n > SIZE_MAX - header) return wl_fail(e, WL_ERR_TOO_LONG, 0, *n, SIZE_MAX, 0);
    return WL_OK;
}

// Encodes into buf[0..cap); refuses a buffer smaller than the encoding. `message`:
// prefix the SDP message header with t's type id.
static inline wl_status wl_encode(const wl_type *t, const void *v, bool message, uint8_t *buf, size_t cap,
                                  size_t *written, wl_error *err) {
    wl_error local;
    size_t n, header = message ? WL_SDP_HEADER_LEN : 0;
    uint8_t *p;
    if (!err) err = &local;
    if (wl__measure(t, v, header, &n, err) != WL_OK) return err->status;
    if (!buf || cap < header + n) return wl_fail(err, WL_ERR_BUFFER_TOO_SMALL, 0, header + n, buf ? cap : 0, cap);
    p = message ? wl_sdp_put_header(buf, t->message_id, n) : buf;
    t->write(v, p);
    if (written) *written = header + n;
    return WL_OK;
}

// Appends the encoding to out (no allocation once out is large enough). On error out
// is left as it was.
static inline wl_status wl_encode_buf(const wl_type *t, const void *v, bool message, wl_buf *out, wl_error *err) {
    wl_error local;
    size_t n, header = message ? WL_SDP_HEADER_LEN : 0;
    uint8_t *p;
    if (!err) err = &local;
    if (wl__measure(t, v, header, &n, err) != WL_OK) return err->status;
    if (wl_buf_reserve(out, header + n) != WL_OK) return wl_fail(err, WL_ERR_NO_MEMORY, 0, header + n, 0, 0);
    p = out->data + out->len;
    if (message) p = wl_sdp_put_header(p, t->message_id, n);
    t->write(v, p);
    out->len += header + n;
    return WL_OK;
}

// Decodes one value from buf[0..len) into *out (zeroed first). `message`: an SDP
// message of t's type id, else plain bytes. `used` NULL: trailing bytes are an error;
// else it receives the bytes used.
static inline wl_status wl_decode(const wl_type *t, const uint8_t *buf, size_t len, bool message, void *out,
                                  size_t *used, wl_arena *arena, wl_error *err) {
    wl_error local;
    wl_reader r;
    uint16_t id;
    size_t total;
    if (!err) err = &local;
    wl_reader_init(&r, buf, len, arena, t->copy, err);
    memset(out, 0, t->size);
    total = r.len;
    if (message && wl_sdp_open(&r, t->message_id, &id) != WL_OK) return err->status;
    if (t->read(&r, out) != WL_OK) return err->status;
    if (message) {
        if (wl_sdp_close(&r) != WL_OK) return err->status;
        r.len = total;
    }
    return wl_reader_finish(&r, used);
}

// A schema's dispatcher: decodes an SDP message of any type, types[id] being the table
// of type id `id` (NULL where none; `count` entries). *id gets the type id; out (as
// large as the largest type) gets the value.
static inline wl_status wl_decode_any(const wl_type *const *types, size_t count, const uint8_t *buf, size_t len,
                                      uint16_t *id, void *out, size_t out_size, size_t *used, wl_arena *arena,
                                      wl_error *err) {
    wl_error local;
    wl_reader r;
    size_t total;
    if (!err) err = &local;
    wl_reader_init(&r, buf, len, arena, true, err);
    memset(out, 0, out_size);
    *id = 0;
    total = r.len;
    if (wl_sdp_open(&r, 0, id) != WL_OK) return err->status;
    if (*id >= count || !types[*id]) return wl_fail(err, WL_ERR_TYPE_ID, 4, *id, 0, 0);
    if (types[*id]->read(&r, out) != WL_OK) return err->status;
    if (wl_sdp_close(&r) != WL_OK) return err->status;
    r.len = total;
    return wl_reader_finish(&r, used);
}

// The table of type id `kind` in a dispatcher's table, or NULL (recording
// WL_ERR_TYPE_ID in err) when there is none.
static inline const wl_type *wl_type_of(const wl_type *const *types, size_t count, unsigned kind, wl_error *err) {
    if (kind < count && types[kind]) return types[kind];
    if (err) wl_fail(err, WL_ERR_TYPE_ID, 0, (uint64_t)kind, 0, 0);
    return NULL;
}

#ifdef __cplusplus
}
#endif

#endif // WIRELENS_RUNTIME_H
