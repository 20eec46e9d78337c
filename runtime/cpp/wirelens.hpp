// wirelens C++ runtime: the support code that wirelens-generated C++ (C++17) uses.
//
// One header, no dependencies beyond the C++17 standard library, no exceptions: every
// operation that can fail returns a `Status` or a `Result<T>` carrying an `Error` (kind,
// byte offset, value path). Works with -fno-exceptions.
//
// Little-endian loads and stores go through std::memcpy (never pointer casts, except
// detail::LeIter under g++, through GCC's may_alias/aligned(1) attribute; see there); on a
// little-endian host (detected with __BYTE_ORDER__; under MSVC, which defines none, from
// _M_X64, _M_IX86, _M_ARM64 or _M_ARM, as wirelens.h does) they are plain loads and stores
// and arrays of primitives are copied in bulk. Any other host, or a build with
// WIRELENS_PORTABLE_ENDIAN defined, assembles values byte by byte (correct everywhere).

#ifndef WIRELENS_RUNTIME_HPP
#define WIRELENS_RUNTIME_HPP

#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
// The SSE2 ASCII test: gcc and clang outside MSVC mode, through their builtin (no
// <emmintrin.h>, which an MSVC-mode build may not parse); everyone else takes the portable
// 8-byte-word path.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__) && !defined(_MSC_VER)
#define WIRELENS_SSE2 1
#endif

#if defined(__GNUC__) || defined(__clang__)
/// Error paths: out of line and off the hot path, so the decoders' fast paths stay small.
#define WIRELENS_COLD __attribute__((cold, noinline))
#define WIRELENS_NOINLINE __attribute__((noinline))
/// The small Reader/Writer steps every field goes through: g++ -O2 left several of them out
/// of line (a call per string), so they are inlined into the generated per-type functions.
/// Also the generated write_to of a struct that the schema writes from one place only.
#define WIRELENS_HOT inline __attribute__((always_inline))
/// Tells the optimizer a fact the code guarantees (under UBSan a false one is reported).
#define WIRELENS_ASSUME(c)           \
    do {                             \
        if (!(c)) {                  \
            __builtin_unreachable(); \
        }                            \
    } while (0)
#else
#define WIRELENS_COLD
#define WIRELENS_NOINLINE
#define WIRELENS_HOT inline
#define WIRELENS_ASSUME(c) ((void)0)
#endif

namespace wirelens {

#if !defined(WIRELENS_PORTABLE_ENDIAN) &&                                                          \
    ((defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                              \
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ||                                               \
     (!defined(__BYTE_ORDER__) && defined(_MSC_VER) &&                                            \
      (defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64) || defined(_M_ARM))))
/// Whether loads and stores may copy the host representation as is.
inline constexpr bool little_endian_host = true;
#else
inline constexpr bool little_endian_host = false;
#endif

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4, "float must be IEEE-754 binary32");
static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8, "double must be IEEE-754 binary64");

/// Largest ffire string byte length and array element count (its prefixes are u16).
inline constexpr size_t ffi_max_len = 65535;

// ---------------------------------------------------------------- little-endian load/store

namespace detail {
template <size_t N>
struct uint_of;
template <>
struct uint_of<1> {
    using type = uint8_t;
};
template <>
struct uint_of<2> {
    using type = uint16_t;
};
template <>
struct uint_of<4> {
    using type = uint32_t;
};
template <>
struct uint_of<8> {
    using type = uint64_t;
};

/// What a Reader over no bytes (a null `data` of length 0) points at.
inline constexpr uint8_t no_bytes[1] = {0};

/// Bytes as `const char*` for std::string_view: char may alias any object, so this is
/// well defined (no value is loaded through a different type).
inline const char* as_chars(const uint8_t* p) noexcept {
    return static_cast<const char*>(static_cast<const void*>(p));
}
inline const uint8_t* as_bytes(const char* p) noexcept {
    return static_cast<const uint8_t*>(static_cast<const void*>(p));
}
inline uint8_t* as_writable_bytes(char* p) noexcept {
    return static_cast<uint8_t*>(static_cast<void*>(p));
}
}  // namespace detail

/// Encoded size of a primitive (`bool` is one byte on the wire, whatever sizeof says).
template <class T>
inline constexpr size_t wire_size = std::is_same_v<T, bool> ? 1 : sizeof(T);

/// Reads a little-endian primitive at `p` (`bool`: any non-zero byte is true; decoders
/// validate bytes before they get here).
template <class T>
inline T load_le(const uint8_t* p) noexcept {
    static_assert(std::is_arithmetic_v<T>, "primitive types only");
    if constexpr (std::is_same_v<T, bool>) {
        return *p != 0;
    } else {
        using U = typename detail::uint_of<sizeof(T)>::type;
        U u = 0;
        if constexpr (little_endian_host) {
            std::memcpy(&u, p, sizeof u);
        } else {
            for (size_t i = 0; i < sizeof(T); ++i) {
                u = static_cast<U>(u | static_cast<U>(static_cast<U>(p[i]) << (8 * i)));
            }
        }
        T v;
        std::memcpy(&v, &u, sizeof v);
        return v;
    }
}

/// load_le into `out`, its type deduced (what generated code uses for a block's fields).
template <class T>
inline void load_le(const uint8_t* p, T& out) noexcept {
    out = load_le<T>(p);
}

/// Writes a primitive little-endian at `p`.
template <class T>
inline void store_le(uint8_t* p, T v) noexcept {
    static_assert(std::is_arithmetic_v<T>, "primitive types only");
    if constexpr (std::is_same_v<T, bool>) {
        *p = v ? 1 : 0;
    } else {
        using U = typename detail::uint_of<sizeof(T)>::type;
        U u;
        std::memcpy(&u, &v, sizeof u);
        if constexpr (little_endian_host) {
            std::memcpy(p, &u, sizeof u);
        } else {
            for (size_t i = 0; i < sizeof(T); ++i) {
                p[i] = static_cast<uint8_t>(u >> (8 * i));
            }
        }
    }
}

/// A run of a generated struct's members that the compiler lays out as the wire does is
/// stored with one copy (gcc and clang do not merge the per-member stores). The generated
/// code asks `run_start<T>(offsets)` for the run's first offset: `offsets` is a generic
/// lambda calling `offsetof` on its tag's type, instantiated only for a standard-layout
/// type on a little-endian host (elsewhere `offsetof` is not portable, and the
/// field-by-field fallback is used).
inline constexpr size_t no_run = std::numeric_limits<size_t>::max();

template <class T>
struct type_tag {
    using type = T;
};

template <class T, class F>
constexpr size_t run_start(F offsets) noexcept {
    if constexpr (little_endian_host && std::is_standard_layout_v<T>) {
        return offsets(type_tag<T>{});
    } else {
        return no_run;
    }
}

/// Copies `n` input bytes into `v`'s representation at offset `at` (a run whose bools
/// were checked, see `run_start`).
template <class T>
WIRELENS_HOT void load_run(const uint8_t* p, T& v, size_t at, size_t n) noexcept {
    std::memcpy(static_cast<unsigned char*>(static_cast<void*>(&v)) + at, p, n);
}

/// Copies `n` bytes of `v`'s representation from offset `at` (a run, see `run_start`).
template <class T>
WIRELENS_HOT void store_run(uint8_t* p, const T& v, size_t at, size_t n) noexcept {
    std::memcpy(p, static_cast<const unsigned char*>(static_cast<const void*>(&v)) + at, n);
}

// ---------------------------------------------------------------- short copies

namespace detail {
template <size_t W>
WIRELENS_HOT void copy_pair(uint8_t* d, const uint8_t* s, size_t n) noexcept {
    // Both loads before both stores: the two ranges overlap when n < 2 W.
    uint8_t a[W], b[W];
    std::memcpy(a, s, W);
    std::memcpy(b, s + n - W, W);
    std::memcpy(d, a, W);
    std::memcpy(d + n - W, b, W);
}

/// Copies n <= 32 bytes as two overlapping fixed-width copies inside [d, d + n): no libc
/// call (most strings are this short).
WIRELENS_HOT void copy_short(uint8_t* d, const uint8_t* s, size_t n) noexcept {
    if (n >= 16) {
        copy_pair<16>(d, s, n);
    } else if (n >= 8) {
        copy_pair<8>(d, s, n);
    } else if (n >= 4) {
        copy_pair<4>(d, s, n);
    } else if (n >= 2) {
        copy_pair<2>(d, s, n);
    } else if (n == 1) {
        *d = *s;
    }
}

/// The address of `p` as an integer, read from the pointer's bytes (no pointer cast).
inline uintptr_t address_of(const void* p) noexcept {
    uintptr_t a = 0;
    static_assert(sizeof a == sizeof p, "uintptr_t holds a pointer");
    std::memcpy(&a, &p, sizeof a);
    return a;
}

/// Whether a copy of n bytes from s to d would meet `rep movsb`'s page-aliasing slowdown:
/// glibc up to 2.38 copies more than ~2 KiB with `rep movsb`, which AMD Zen 3/4 run 10-25x
/// slower when the destination lies 1-15 bytes above the source modulo 4 KiB (glibc bug
/// 30994; `bench/codec-c/memcpy-offset`: 20,000 bytes in 5.7 us instead of 0.35 us). The
/// window is taken as 1-31 bytes (at 16-31 the blocks are faster too). Only up to 1 MiB:
/// above its L2 size (512 KiB-1 MiB) glibc copies on AMD without `rep movsb`, and where it
/// still uses it (Intel, up to its non-temporal threshold) the blocks were 15-20 % slower
/// than memcpy at 64 MiB, at any distance (bench/big/copy-probe.c; BENCHMARKS.md "Big messages").
inline bool rep_movsb_aliases(const void* d, const void* s, size_t n) noexcept {
    return n > 2048 && n <= (size_t(1) << 20) && ((address_of(d) - address_of(s)) & 4095) - 1 < 31;
}

/// Copies n >= 128 bytes in 64-byte blocks (vector moves, no `rep movsb`): a first block,
/// then blocks whose stores start on a 64-byte line (none splits a line), then a last block
/// overlapping the one before it. The empty asm keeps clang from turning the loop back into
/// one memcpy call.
#if defined(__GNUC__)
__attribute__((noinline))
#endif
inline void copy_blocks(uint8_t* d, const uint8_t* s, size_t n) noexcept {
    size_t i = 64 - (address_of(d) & 63);
    std::memcpy(d, s, 64);
    for (; n - i >= 64; i += 64) {
        std::memcpy(d + i, s + i, 64);
#if defined(__GNUC__)
        __asm__("" : "+r"(i));
#endif
    }
    std::memcpy(d + n - 64, s + n - 64, 64);
}

/// copy_array's path for more than 2 KiB, out of line: memcpy, or blocks where `rep movsb`
/// would alias (rep_movsb_aliases).
#if defined(__GNUC__)
__attribute__((noinline))
#endif
inline void copy_long(void* d, const void* s, size_t n) noexcept {
    if (rep_movsb_aliases(d, s, n)) {
        copy_blocks(static_cast<uint8_t*>(d), static_cast<const uint8_t*>(s), n);
    } else {
        std::memcpy(d, s, n);
    }
}

/// `n`, with what the compiler knows of its range forgotten: a copy of a length it has
/// bounded (by the tests on the path to it) may be inlined as `rep movsb` / `rep movsq`,
/// whose start-up costs more than a short copy by a call to memcpy.
WIRELENS_HOT size_t opaque(size_t n) noexcept {
#if defined(__GNUC__)
    __asm__("" : "+r"(n));
#endif
    return n;
}

/// memcpy, out of line: inlined into a large decoder, g++ -O2 may expand a memcpy of
/// unknown length as `rep movsb`, slow to start on short runs (20 ns measured).
WIRELENS_NOINLINE inline void copy_call(void* d, const void* s, size_t n) noexcept {
    std::memcpy(d, s, n);
}

/// Copies n bytes: up to 32 (most strings and small arrays) with copy_short, longer ones
/// with memcpy (which g++ -O2 may inline as `rep movsb`, slow to start on short runs).
WIRELENS_HOT void copy_bytes(void* d, const void* s, size_t n) noexcept {
    if (n <= 32) {
        copy_short(static_cast<uint8_t*>(d), static_cast<const uint8_t*>(s), n);
    } else {
        copy_call(d, s, n);
    }
}

/// copy_bytes for the elements of a primitive array being encoded, which may be long: more
/// than 2 KiB go through copy_long. (Strings stay on copy_bytes: the test in every string
/// copy made decoding into reused values 9-10 % slower and encoding 8-12 %.)
WIRELENS_HOT void copy_array(void* d, const void* s, size_t n) noexcept {
    if (n > 2048) {
        copy_long(d, s, n);
    } else {
        copy_bytes(d, s, n);
    }
}

/// A random-access iterator over encoded primitives whose `*` loads one (no `T*` into the
/// input is formed). `std::vector::assign` from it allocates once from the distance and
/// copies in one pass, which g++ -O2 and clang++ -O2 compile to one memcpy on little-endian
/// hosts; `resize(n)` + memcpy wrote every element twice. `reference` is a prvalue `T`, as
/// for C++20 iterators (the standard containers dispatch on the category only).
template <class T>
class LeIter {
public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = ptrdiff_t;
    using pointer = void;
    using reference = T;

    explicit LeIter(const uint8_t* p) noexcept : p_(p) {}
    T operator*() const noexcept { return load(p_); }
    T operator[](difference_type i) const noexcept { return load(p_ + i * step); }
    LeIter& operator++() noexcept {
        p_ += step;
        return *this;
    }
    LeIter operator++(int) noexcept {
        LeIter old = *this;
        p_ += step;
        return old;
    }
    LeIter& operator--() noexcept {
        p_ -= step;
        return *this;
    }
    LeIter operator--(int) noexcept {
        LeIter old = *this;
        p_ -= step;
        return old;
    }
    LeIter& operator+=(difference_type d) noexcept {
        p_ += d * step;
        return *this;
    }
    LeIter& operator-=(difference_type d) noexcept {
        p_ -= d * step;
        return *this;
    }
    friend LeIter operator+(LeIter a, difference_type d) noexcept { return a += d; }
    friend LeIter operator+(difference_type d, LeIter a) noexcept { return a += d; }
    friend LeIter operator-(LeIter a, difference_type d) noexcept { return a -= d; }
    friend difference_type operator-(const LeIter& a, const LeIter& b) noexcept { return (a.p_ - b.p_) / step; }
    friend bool operator==(const LeIter& a, const LeIter& b) noexcept { return a.p_ == b.p_; }
    friend bool operator!=(const LeIter& a, const LeIter& b) noexcept { return a.p_ != b.p_; }
    friend bool operator<(const LeIter& a, const LeIter& b) noexcept { return a.p_ < b.p_; }
    friend bool operator>(const LeIter& a, const LeIter& b) noexcept { return a.p_ > b.p_; }
    friend bool operator<=(const LeIter& a, const LeIter& b) noexcept { return a.p_ <= b.p_; }
    friend bool operator>=(const LeIter& a, const LeIter& b) noexcept { return a.p_ >= b.p_; }

private:
    static constexpr difference_type step = static_cast<difference_type>(wire_size<T>);
#if defined(__GNUC__) && !defined(__clang__)
    /// `T` at alignment 1 that may alias anything: GCC's documented unaligned access (UBSan
    /// checks the 1-byte alignment). g++ folds load_le's memcpy into a load of an unsigned
    /// integer converted to `T`, and its loop distribution turns a copy loop into memcpy only
    /// when the stored value is the loaded one: with load_le every signed and floating `T`
    /// stayed an element-by-element loop (docs/benchmarks/history.md, "owned primitive
    /// arrays without zero-fill"). clang++ makes the memcpy from load_le, so only g++ takes
    /// this path: the runtime's one load through a cast pointer.
    typedef T __attribute__((may_alias, aligned(1))) Unaligned;
    static T load(const uint8_t* p) noexcept {
        if constexpr (little_endian_host && !std::is_same_v<T, bool>) {
            return *static_cast<const Unaligned*>(static_cast<const void*>(p));
        } else {
            return load_le<T>(p);
        }
    }
#else
    static T load(const uint8_t* p) noexcept { return load_le<T>(p); }
#endif
    const uint8_t* p_;
};

/// An element an ArenaVector of a trivial type grows by without initializing it
/// (ArenaAllocator::construct takes it and does nothing), for the decoders that then copy
/// the wire bytes over it: a resize zero-filled the array first (array_int's 20 KB arena
/// decode 1.33x the default one). The conversion is only for the assignment that
/// `vector::insert` instantiates and never runs when appending at the end.
struct Uninit {
    template <class T>
    operator T() const noexcept {
        static_assert(std::is_trivially_default_constructible_v<T>, "Uninit is for trivial elements");
        return T();
    }
};

/// A forward range of `n` copies of the empty value V: `v.insert(v.end(), Repeat<V>(0),
/// Repeat<V>(n))` appends n elements built from V{} with one growth and one loop of
/// in-place constructions. (An emplace_back per element was an out-of-line call each:
/// libstdc++'s, with its growth path inlined into it, 27 instructions per element of
/// array_struct, g++ -O2.)
template <class V>
class Repeat {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = V;
    using difference_type = std::ptrdiff_t;
    using pointer = const V*;
    using reference = V;

    Repeat() noexcept = default;
    explicit Repeat(size_t i) noexcept : i_(i) {}
    V operator*() const noexcept { return V{}; }
    Repeat& operator++() noexcept {
        ++i_;
        return *this;
    }
    Repeat operator++(int) noexcept {
        Repeat t = *this;
        ++i_;
        return t;
    }
    friend bool operator==(Repeat a, Repeat b) noexcept { return a.i_ == b.i_; }
    friend bool operator!=(Repeat a, Repeat b) noexcept { return a.i_ != b.i_; }
    friend difference_type operator-(Repeat a, Repeat b) noexcept {
        return static_cast<difference_type>(a.i_ - b.i_);
    }

private:
    size_t i_ = 0;
};

/// `out` = the `n` primitives encoded at `p`. Into new storage (the usual case: a fresh
/// value) `assign` allocates once and copies once. An existing vector whose capacity
/// suffices is reused without allocating: `resize` (which value-initialises only the
/// elements beyond its old size) and one memcpy, because g++ cannot prove that storage
/// disjoint from `p` and keeps `assign`'s copy there an element-by-element loop.
template <class T, class A>
inline void assign_le(std::vector<T, A>& out, const uint8_t* p, size_t n) {
    if constexpr (little_endian_host && !std::is_same_v<T, bool>) {
        // Another allocator (ArenaAllocator): libstdc++'s assign constructs element by
        // element through it (a loop, 4-7x slower on a 20 KB array than memcpy), which
        // for a few elements is still faster than resize's out-of-line value-initialization.
        const size_t bytes = n * sizeof(T);
        if (n <= out.capacity() || (!std::is_same_v<A, std::allocator<T>> && bytes > 256)) {
            // copy_bytes, not copy_array: the length test here made decoding into reused
            // values 5-10 % slower (141-byte record, array_string), so a reused vector at an
            // aliasing placement is not steered.
            if constexpr (!std::is_same_v<A, std::allocator<T>>) {
                if (n > out.size()) {
                    out.reserve(n);
                    out.insert(out.end(), Repeat<Uninit>(out.size()), Repeat<Uninit>(n));
                } else {
                    out.resize(n);
                }
            } else {
                out.resize(n);
            }
            copy_bytes(out.data(), p, bytes);
            return;
        }
        if (bytes > 2048) {
            // The storage is taken first, so that a placement where `rep movsb` would alias
            // gets copy_blocks (after a zero-fill). Otherwise the elements are inserted: like
            // assign into new storage, one memcpy and no zero-fill (assign into reserved
            // storage stayed an element-by-element loop, 8x slower on 20 KB).
            out.clear();
            out.reserve(n);
            if (rep_movsb_aliases(out.data(), p, bytes)) {
                out.resize(n);
                copy_blocks(static_cast<uint8_t*>(static_cast<void*>(out.data())), p, bytes);
            } else {
                out.insert(out.end(), LeIter<T>(p), LeIter<T>(p + bytes));
            }
            return;
        }
    }
    if constexpr (std::is_same_v<T, bool>) {
        // The bytes are checked (00/01). assign from the byte range keeps its bit cursor in
        // registers; a push_back per bit stored the vector's end back to memory each time
        // (std::vector<bool> of 5 / 64 / 1,000: 29 / 79 / 1,736 ns against 32 / 155 / 3,001).
        out.assign(p, p + n);
        return;
    }
    // The count laundered: g++ knows from the tests above that the copy is at most 2 KiB
    // and a multiple of the element size, and would inline it as `rep movsq`, whose start-up
    // took longer than the rest of decoding a 5-element array; unbounded, it calls memcpy.
    out.assign(LeIter<T>(p), LeIter<T>(p + opaque(n) * wire_size<T>));
}
}  // namespace detail

/// A zero-copy view of an array of little-endian primitives inside the input (what view
/// decoders return for `[]u32`, `[]float64`, …). Elements are loaded on access.
template <class T>
class LeSpan {
public:
    LeSpan() = default;
    LeSpan(const uint8_t* bytes, size_t count) noexcept : p_(bytes), n_(count) {}

    size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    T operator[](size_t i) const noexcept { return load_le<T>(p_ + i * wire_size<T>); }
    /// The encoded bytes (size() × wire_size<T>).
    const uint8_t* bytes() const noexcept { return p_; }
    size_t size_bytes() const noexcept { return n_ * wire_size<T>; }

    /// The elements as an owned vector (one bulk copy on little-endian hosts); `V`: another
    /// std::vector type (wirelens::ArenaVector<T>).
    template <class V = std::vector<T>>
    V to_vector() const {
        V out;
        detail::assign_le(out, p_, n_);
        return out;
    }

    class iterator {
    public:
        iterator(const uint8_t* p) noexcept : p_(p) {}
        T operator*() const noexcept { return load_le<T>(p_); }
        iterator& operator++() noexcept {
            p_ += wire_size<T>;
            return *this;
        }
        bool operator!=(const iterator& o) const noexcept { return p_ != o.p_; }
        bool operator==(const iterator& o) const noexcept { return p_ == o.p_; }

    private:
        const uint8_t* p_;
    };
    iterator begin() const noexcept { return iterator(p_); }
    iterator end() const noexcept { return iterator(p_ + size_bytes()); }

private:
    const uint8_t* p_ = nullptr;
    size_t n_ = 0;
};

// ---------------------------------------------------------------- arena

/// Memory for decoding views of code generated with `[generate.cpp] memory = "arena"`:
/// their arrays of structs and of strings are `Span`s allocated here, so a decode makes no
/// call to malloc once the arena holds enough memory (C's `wl_arena`, in C++). A bump
/// allocator over blocks taken with std::malloc; nothing allocated from it has a
/// destructor (the views of arena mode are trivially destructible), so `reset()` just
/// forgets. The values decoded from an arena point into it (and into the input): they
/// dangle after `reset()` or the arena's destruction. Not thread-safe; one per thread.
class Arena {
public:
    Arena() noexcept = default;
    /// `first_block`: the bytes of the first block taken from the system (later ones double).
    explicit Arena(size_t first_block) noexcept : next_(first_block == 0 ? 1 : first_block) {}
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() { release(); }

    /// Forgets every allocation. The memory is kept (several blocks are merged into one of
    /// their total size), so decoding the same data again takes nothing from the system.
    void reset() noexcept {
        if (head_ != nullptr && head_->prev != nullptr) {
            const size_t total = held_;
            release();
            next_ = total;
            add_block(0);
        }
        at_ = 0;
    }
    /// Returns every block to the system.
    void release() noexcept {
        while (head_ != nullptr) {
            Block* prev = head_->prev;
            std::free(head_);
            head_ = prev;
        }
        base_ = nullptr;
        at_ = cap_ = held_ = 0;
    }
    /// Bytes of memory taken from the system and not released.
    size_t capacity() const noexcept { return held_; }

    /// Storage for `count` (> 0) objects of `T`, aligned, uninitialized; nullptr when the
    /// size overflows or the system has no memory.
    template <class T>
    WIRELENS_HOT T* allocate(size_t count) noexcept {
        static_assert(alignof(T) <= alignof(std::max_align_t), "over-aligned arena type");
        if (count > SIZE_MAX / 4 / sizeof(T)) {
            return nullptr;
        }
        const size_t bytes = count * sizeof(T);
        // Blocks start max_align_t-aligned, so aligning the offset aligns the address.
        const size_t at = (at_ + (alignof(T) - 1)) & ~(alignof(T) - 1);
        if (at > cap_ || bytes > cap_ - at) {
            return static_cast<T*>(grow(bytes));
        }
        at_ = at + bytes;
        return static_cast<T*>(static_cast<void*>(base_ + at));
    }

private:
    struct alignas(std::max_align_t) Block {
        Block* prev;
        size_t size;
    };

    /// A new block of at least `bytes`, then `bytes` from its start.
    WIRELENS_NOINLINE void* grow(size_t bytes) noexcept {
        if (!add_block(bytes)) {
            return nullptr;
        }
        at_ = bytes;
        return base_;
    }
    bool add_block(size_t bytes) noexcept {
        const size_t size = next_ > bytes ? next_ : bytes;
        if (size > SIZE_MAX / 4) {
            return false;
        }
        void* mem = std::malloc(sizeof(Block) + size);
        if (mem == nullptr) {
            return false;
        }
        Block* b = ::new (mem) Block{head_, size};
        head_ = b;
        held_ += size;
        next_ = size * 2;
        base_ = static_cast<char*>(static_cast<void*>(b + 1));
        at_ = 0;
        cap_ = size;
        return true;
    }

    char* base_ = nullptr;  // the current block's memory
    size_t at_ = 0;         // bytes of it used
    size_t cap_ = 0;        // its size
    Block* head_ = nullptr;
    size_t held_ = 0;
    size_t next_ = 4096;
};

/// The array type of arena-mode views (`[generate.cpp] memory = "arena"`): `size()`
/// elements in an Arena, read in place (no std::vector, no per-array allocation from the
/// system). Trivially copyable; valid until the arena is reset.
template <class T>
class Span {
public:
    using value_type = T;
    Span() = default;
    Span(T* data, size_t count) noexcept : p_(data), n_(count) {}

    size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    T* data() const noexcept { return p_; }
    T& operator[](size_t i) const noexcept { return p_[i]; }
    T* begin() const noexcept { return p_; }
    T* end() const noexcept { return p_ + n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

/// The allocator of the owned strings and arrays of code generated with `[generate.cpp]
/// memory = "arena"` (ArenaString, ArenaVector): from an Arena when it has one (the
/// decoders given an arena put what they fill there), else from the heap (values the
/// program builds, decodes without an arena). It moves with its memory (propagates on move
/// assignment and swap), and a copy of a container is on the heap, so copies never point
/// into an arena. Memory from an arena is never freed one piece at a time: destroy (or
/// stop using) the values decoded into an arena before resetting it.
template <class T>
class ArenaAllocator {
public:
    using value_type = T;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using propagate_on_container_copy_assignment = std::false_type;
    using is_always_equal = std::false_type;

    ArenaAllocator() noexcept = default;
    explicit ArenaAllocator(Arena* arena) noexcept : arena_(arena) {}
    template <class U>
    ArenaAllocator(const ArenaAllocator<U>& o) noexcept : arena_(o.arena()) {}

    T* allocate(size_t n) {
        if (arena_ == nullptr) {
            return std::allocator<T>().allocate(n);
        }
        T* p = arena_->allocate<T>(n == 0 ? 1 : n);
        if (p == nullptr) {
            std::abort();  // out of memory, as std::allocator without exceptions
        }
        return p;
    }
    void deallocate(T* p, size_t n) noexcept {
        if (arena_ == nullptr) {
            std::allocator<T>().deallocate(p, n);
        }
    }
    /// Leaves an element of a trivial type uninitialized (detail::Uninit, only the decoders
    /// pass it); every other construction is the default one (placement new).
    template <class U, class V, std::enable_if_t<std::is_same_v<V, detail::Uninit>, int> = 0>
    void construct(U* p, V) noexcept {  // V exactly Uninit (DefaultInit converts to anything)
        static_assert(std::is_trivially_default_constructible_v<U>, "Uninit is for trivial elements");
        ::new (static_cast<void*>(p)) U;
    }
    ArenaAllocator select_on_container_copy_construction() const noexcept { return ArenaAllocator(); }
    Arena* arena() const noexcept { return arena_; }

    friend bool operator==(const ArenaAllocator& a, const ArenaAllocator& b) noexcept { return a.arena_ == b.arena_; }
    friend bool operator!=(const ArenaAllocator& a, const ArenaAllocator& b) noexcept { return a.arena_ != b.arena_; }

private:
    Arena* arena_ = nullptr;
};

/// Owned arrays and strings of code generated with `[generate.cpp] memory = "arena"`: a
/// std::vector / std::basic_string with an ArenaAllocator (compare with std::string
/// through std::string_view).
template <class T>
using ArenaVector = std::vector<T, ArenaAllocator<T>>;
using ArenaString = std::basic_string<char, std::char_traits<char>, ArenaAllocator<char>>;

/// An array of arrays nested deeper than 8 levels (generated code uses it for those outer
/// levels only, issue 39): a std::vector<T> (every member, `==`, binding to a
/// `std::vector<T>&`, construction from one), but a class of its own. A name-lookup
/// (argument-dependent) of an operator on `std::vector<std::vector<...>>` visits the
/// element type twice per level (as the vector's and as its allocator's argument), so
/// g++'s compile time doubled every level (a header with 24 levels took 20 s, 32 never
/// finished); a `Nested<T>` level is visited once, and its base's arguments not at all.
template <class T>
struct Nested : std::vector<T> {
    using std::vector<T>::vector;
    Nested() = default;
    Nested(const std::vector<T>& v) : std::vector<T>(v) {}
    Nested(std::vector<T>&& v) noexcept : std::vector<T>(std::move(v)) {}
};

/// Nested for `memory = "arena"`: an ArenaVector<T>.
template <class T>
struct ArenaNested : ArenaVector<T> {
    using ArenaVector<T>::ArenaVector;
    ArenaNested() = default;
    ArenaNested(const ArenaVector<T>& v) : ArenaVector<T>(v) {}
    ArenaNested(ArenaVector<T>&& v) noexcept : ArenaVector<T>(std::move(v)) {}
};

namespace detail {
template <class C, class = void>
struct arena_allocated : std::false_type {};
template <class C>
struct arena_allocated<C, std::void_t<typename C::allocator_type>>
    : std::is_same<typename C::allocator_type, ArenaAllocator<typename C::value_type>> {};
}  // namespace detail

// ---------------------------------------------------------------- optional structs

namespace detail {
/// Optional's storage: trivially copyable when T is (like std::optional's), so a struct
/// made of such members stays trivially copyable.
template <class T, bool = std::is_trivially_copyable_v<T>>
struct OptionalStorage {
    union {
        char none_;
        T value_;
    };
    bool has_ = false;
    OptionalStorage() noexcept : none_() {}
    void destroy() noexcept { has_ = false; }
};
template <class T>
struct OptionalStorage<T, false> {
    union {
        char none_;
        T value_;
    };
    bool has_ = false;
    OptionalStorage() noexcept : none_() {}
    OptionalStorage(const OptionalStorage& o) : none_() {
        if (o.has_) {
            ::new (static_cast<void*>(&value_)) T(o.value_);
            has_ = true;
        }
    }
    OptionalStorage(OptionalStorage&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : none_() {
        if (o.has_) {
            ::new (static_cast<void*>(&value_)) T(std::move(o.value_));
            has_ = true;
        }
    }
    OptionalStorage& operator=(const OptionalStorage& o) {
        if (!o.has_) {
            destroy();
        } else if (has_) {
            value_ = o.value_;
        } else {
            ::new (static_cast<void*>(&value_)) T(o.value_);
            has_ = true;
        }
        return *this;
    }
    OptionalStorage& operator=(OptionalStorage&& o) noexcept(std::is_nothrow_move_assignable_v<T>&&
                                                                 std::is_nothrow_move_constructible_v<T>) {
        if (!o.has_) {
            destroy();
        } else if (has_) {
            value_ = std::move(o.value_);
        } else {
            ::new (static_cast<void*>(&value_)) T(std::move(o.value_));
            has_ = true;
        }
        return *this;
    }
    ~OptionalStorage() { destroy(); }
// g++ 12 at -O2 warns that the members of an empty optional's value "may be used
// uninitialized" where `destroy` is inlined into an `emplace` right after the optional was
// default-constructed (the `has_` test that guards the destructor is not followed): a
// false positive, reported inside the destroyed type's own destructor (a struct holding a
// std::vector<std::vector<float>>, found by the property test).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    void destroy() noexcept {
        if (has_) {
            value_.~T();
            has_ = false;
        }
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
};
}  // namespace detail

/// The type of an optional struct member (SDP `Option<S>`, ffire `*S`, and their views):
/// the subset of std::optional that generated code and its users need. g++ (12) compiles
/// each std::optional<S> in time that grows with the number of std::optional
/// specializations already in the translation unit (quadratic over a schema's structs: 15 s
/// for 1,000 of them, 90 s for 2,000); this one stays linear (docs/benchmarks/history.md,
/// "#13 compile scaling, 2026-11-24 session 3"). Other optionals (of primitives, strings,
/// arrays) are std::optional. Reading an empty one (`value()`) calls std::abort(); `*` and
/// `->` do not check, as for std::optional.
template <class T>
class Optional : private detail::OptionalStorage<T> {
public:
    using value_type = T;

    Optional() noexcept = default;
    Optional(std::nullopt_t) noexcept {}
    Optional(const T& v) { construct(v); }
    Optional(T&& v) { construct(std::move(v)); }

    Optional& operator=(std::nullopt_t) noexcept {
        reset();
        return *this;
    }
    Optional& operator=(const T& v) {
        if (this->has_) {
            this->value_ = v;
        } else {
            construct(v);
        }
        return *this;
    }
    Optional& operator=(T&& v) {
        if (this->has_) {
            this->value_ = std::move(v);
        } else {
            construct(std::move(v));
        }
        return *this;
    }

    /// Destroys the value, if any, and constructs a new one from `args`.
    template <class... A>
    T& emplace(A&&... args) {
        reset();
        construct(std::forward<A>(args)...);
        return this->value_;
    }
    void reset() noexcept { this->destroy(); }

    bool has_value() const noexcept { return this->has_; }
    explicit operator bool() const noexcept { return this->has_; }

    T& operator*() & noexcept { return this->value_; }
    const T& operator*() const& noexcept { return this->value_; }
    T&& operator*() && noexcept { return std::move(this->value_); }
    T* operator->() noexcept { return &this->value_; }
    const T* operator->() const noexcept { return &this->value_; }

    T& value() & noexcept {
        check();
        return this->value_;
    }
    const T& value() const& noexcept {
        check();
        return this->value_;
    }

private:
    template <class... A>
    void construct(A&&... args) {
        ::new (static_cast<void*>(&this->value_)) T(std::forward<A>(args)...);
        this->has_ = true;
    }
    void check() const noexcept {
        if (!this->has_) {
            std::abort();
        }
    }
};

/// Equal when both are empty or both hold equal values.
template <class T>
bool operator==(const Optional<T>& a, const Optional<T>& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
}
template <class T>
bool operator!=(const Optional<T>& a, const Optional<T>& b) {
    return !(a == b);
}

// ---------------------------------------------------------------- errors

/// Why an encode or decode failed. The meaning of Error::found / expected / left per kind
/// is given on each enumerator.
enum class ErrorKind : uint8_t {
    ok = 0,
    /// The input ends early: `expected` bytes needed, `left` remain.
    unexpected_end,
    /// A bool byte other than 00/01 (`found`).
    invalid_bool,
    /// A presence byte other than 00/01 (`found`).
    invalid_presence,
    /// A string that is not valid UTF-8 (offset = the first bad byte).
    invalid_utf8,
    /// A count the remaining input cannot justify: `found` elements of at least
    /// `expected` bytes each, `left` bytes remain (spec §4.3).
    implausible_count,
    /// `found` bytes after the value (use decode_prefix for back-to-back records).
    trailing_bytes,
    /// SDP message: the magic is not "SDP".
    bad_magic,
    /// SDP message: the version byte (`found`) is not '2'.
    bad_version,
    /// SDP message: type id `found`, expected `expected` (0 for a dispatcher: unknown id).
    wrong_type_id,
    /// SDP message: the header announces `expected` payload bytes, `found` were used/available.
    length_mismatch,
    /// Encode: a string or array of `found` bytes/elements exceeds the prefix's maximum `expected`.
    too_long,
    /// Encode: the caller's buffer holds `found` bytes, the encoding needs `expected`.
    buffer_too_small,
    /// Decode: the value needs `found` more bytes of memory than the `expected` left of the
    /// caller's memory budget (see Reader::set_budget).
    over_budget,
};

/// An encode or decode failure: what, where (byte offset in the input, or in the output
/// buffer when encoding), and the value path (`plugins[3].name`, empty at the root).
struct Error {
    ErrorKind kind = ErrorKind::ok;
    size_t offset = 0;
    uint64_t found = 0;
    uint64_t expected = 0;
    uint64_t left = 0;
    std::string path;

    static Error make(ErrorKind kind, size_t offset, uint64_t found = 0, uint64_t expected = 0, uint64_t left = 0) {
        Error e;
        e.kind = kind;
        e.offset = offset;
        e.found = found;
        e.expected = expected;
        e.left = left;
        return e;
    }

    /// Adds an enclosing struct field (its JSON name) in front of the path.
    void push_field(const char* name) {
        std::string seg(name);
        if (!path.empty() && path[0] != '[') {
            seg.push_back('.');
        }
        path.insert(0, seg);
    }

    /// Adds an enclosing array index in front of the path.
    void push_index(size_t i) {
        std::string seg = "[" + std::to_string(i) + "]";
        if (!path.empty() && path[0] != '[') {
            seg.push_back('.');
        }
        path.insert(0, seg);
    }

    /// A readable description: `plugins[3].name: string is not valid UTF-8 (at byte offset 41)`.
    std::string message() const {
        std::string s = path.empty() ? std::string() : path + ": ";
        auto n = [](uint64_t v) { return std::to_string(v); };
        auto hex = [](uint64_t v) {
            const char* digits = "0123456789abcdef";
            std::string h = "0x";
            h.push_back(digits[(v >> 4) & 15]);
            h.push_back(digits[v & 15]);
            return h;
        };
        switch (kind) {
            case ErrorKind::ok:
                return "ok";
            case ErrorKind::unexpected_end:
                s += "needs " + n(expected) + " byte(s) but only " + n(left) + " are left";
                break;
            case ErrorKind::invalid_bool:
                s += "bool byte " + hex(found) + "; expected 00 or 01";
                break;
            case ErrorKind::invalid_presence:
                s += "presence byte " + hex(found) + "; expected 00 or 01";
                break;
            case ErrorKind::invalid_utf8:
                s += "string is not valid UTF-8";
                break;
            case ErrorKind::implausible_count:
                s += "count " + n(found) + " x " + n(expected) + " byte(s) exceeds the " + n(left) + " bytes left";
                break;
            case ErrorKind::trailing_bytes:
                s += n(found) + " trailing byte(s) after the value";
                break;
            case ErrorKind::bad_magic:
                s += "bad message magic; expected \"SDP\"";
                break;
            case ErrorKind::bad_version:
                s += "unsupported message version " + hex(found) + "; expected '2'";
                break;
            case ErrorKind::wrong_type_id:
                s += expected == 0 ? "unknown message type id " + n(found)
                                   : "message type id " + n(found) + "; expected " + n(expected);
                break;
            case ErrorKind::length_mismatch:
                s += "message header announces " + n(expected) + " payload bytes but found " + n(found);
                break;
            case ErrorKind::too_long:
                return "length " + n(found) + " exceeds the maximum " + n(expected) + " (at output offset " +
                       n(offset) + ")";
            case ErrorKind::over_budget:
                s += "needs " + n(found) + " bytes of memory, " + n(expected) + " left of the decode budget";
                break;
            case ErrorKind::buffer_too_small:
                return "buffer too small: the encoding needs " + n(expected) + " bytes, the buffer has " + n(found);
        }
        return s + " (at byte offset " + n(offset) + ")";
    }
};

/// Success, or an Error.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error)) {}
    bool ok() const noexcept { return error_.kind == ErrorKind::ok; }
    explicit operator bool() const noexcept { return ok(); }
    const Error& error() const noexcept { return error_; }

private:
    Error error_;
};

namespace detail {
/// Converts to any class `T` as a default-initialized `T` (`T t;`, which runs a generated
/// struct's member initializers): `v.emplace_back(DefaultInit{})` builds an element in place
/// (g++ and clang++ elide the copy) without value-initialization's zeroing of the whole
/// element first (`T()`: a `rep stos` per element, 20 % of decoding AudioUnit).
struct DefaultInit {
    template <class T>
    operator T() const noexcept(std::is_nothrow_default_constructible_v<T>) {
        static_assert(std::is_class_v<T>, "a scalar would be left uninitialized");
        T t;
        return t;
    }
};

/// `n` DefaultInit values (see Repeat): `v.insert(v.end(), DefaultInits(0),
/// DefaultInits(n))` appends n default-initialized elements.
using DefaultInits = Repeat<DefaultInit>;
}  // namespace detail

/// A value, or an Error (the exception-free return type of every decoder).
///
/// Reading the value of a failed Result (`value()`, `*`, `->`) is a programming error with
/// defined behaviour: it calls `std::abort()` (this runtime never uses exceptions).
///
/// The value and the Error share storage (a union and a flag, not a std::optional beside an
/// Error): a successful decode neither builds nor destroys an Error (its std::string), which
/// was a measurable part of decoding a 141-byte record.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : ok_(true) { ::new (static_cast<void*>(&value_)) T(std::move(value)); }
    Result(Error error) : ok_(false) { ::new (static_cast<void*>(&error_)) Error(std::move(error)); }
    /// A default-initialized value (see detail::DefaultInit), for the decoders to fill in
    /// place and return without a move (a move of a struct of vectors, and the moved-from
    /// one's destructor, were 8 % of decoding a 141-byte record).
    explicit Result(std::in_place_t) : ok_(true) { ::new (static_cast<void*>(&value_)) T; }
    Result(const Result& o) : ok_(o.ok_) { copy_from(o); }
    Result(Result&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : ok_(o.ok_) { move_from(o); }
    Result& operator=(const Result& o) {
        if (this != &o) {
            destroy();
            ok_ = o.ok_;
            copy_from(o);
        }
        return *this;
    }
    Result& operator=(Result&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        if (this != &o) {
            destroy();
            ok_ = o.ok_;
            move_from(o);
        }
        return *this;
    }
    ~Result() { destroy(); }
    /// Makes this a failure (the value, if any, is destroyed).
    void fail(Error error) noexcept {
        destroy();
        ::new (static_cast<void*>(&error_)) Error(std::move(error));
        ok_ = false;
    }
    bool ok() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok(); }
    /// The value; aborts when !ok().
    T& value() & noexcept { return *checked(); }
    const T& value() const& noexcept { return *checked(); }
    T&& value() && noexcept { return std::move(*checked()); }
    T* operator->() noexcept { return checked(); }
    const T* operator->() const noexcept { return checked(); }
    T& operator*() & noexcept { return *checked(); }
    const T& operator*() const& noexcept { return *checked(); }
    T&& operator*() && noexcept { return std::move(*checked()); }
    /// The failure; only meaningful when !ok() (a successful Result returns an Error of kind ok).
    const Error& error() const noexcept { return ok_ ? no_error() : error_; }

private:
    static const Error& no_error() noexcept {
        static const Error e;
        return e;
    }
    void copy_from(const Result& o) {
        if (ok_) {
            ::new (static_cast<void*>(&value_)) T(o.value_);
        } else {
            ::new (static_cast<void*>(&error_)) Error(o.error_);
        }
    }
    void move_from(Result& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        if (ok_) {
            ::new (static_cast<void*>(&value_)) T(std::move(o.value_));
        } else {
            ::new (static_cast<void*>(&error_)) Error(std::move(o.error_));
        }
    }
    void destroy() noexcept {
        if (ok_) {
            value_.~T();
        } else {
            error_.~Error();
        }
    }
    T* checked() noexcept {
        if (!ok_) {
            std::abort();
        }
        return &value_;
    }
    const T* checked() const noexcept {
        if (!ok_) {
            std::abort();
        }
        return &value_;
    }

    union {
        T value_;
        Error error_;
    };
    bool ok_;
};

/// The element type of an array member (`decltype(v.items)` in generated readers).
template <class V>
using element_t = typename std::decay_t<V>::value_type;

namespace detail {
template <class T, class = void>
struct is_owned_struct : std::false_type {};
template <class T>
struct is_owned_struct<T, std::void_t<typename T::View>> : std::true_type {};
template <class T>
struct is_span : std::false_type {};
template <class T>
struct is_span<Span<T>> : std::true_type {};
}  // namespace detail

/// How a generated reader fills an array: `start(n)`, then per element `at(i)` (read
/// into it) and `done()`. Usually the vector is resized and elements are read in place.
/// For large owned structs with strings or arrays of code generated with compact strings
/// (`Compact`), each element is read into one local and moved in: value-initializing such an
/// element costs a `rep stos` each (g++ -O2), more than the move. (Measured in
/// docs/benchmarks/history.md, "#14 C++"; std::string members and views measured slower that
/// way.)
/// An arena-mode view array (`Span`) gets its storage from the Reader's Arena
/// (`start(p, n)`), and each element is default-initialized (plain stores of its members'
/// initializers) just before it is read.
template <class V, bool Compact>
class Fill {
public:
    using E = element_t<V>;
    static constexpr bool in_arena = detail::is_span<std::decay_t<V>>::value;
    static constexpr bool by_move = !in_arena && Compact && detail::is_owned_struct<E>::value &&
                                    !std::is_trivially_copyable_v<E> && sizeof(E) >= 64;
    static_assert(!in_arena || std::is_trivially_destructible_v<E>, "an Arena runs no destructors");

    explicit Fill(V& v) noexcept : v_(v) {}
    WIRELENS_HOT void start(E* p, size_t n) noexcept { v_ = std::decay_t<V>(p, n); }
    std::decay_t<V>& container() noexcept { return v_; }
    WIRELENS_HOT void start(size_t n) {
        if constexpr (by_move) {
            v_.clear();
            v_.reserve(n);
        } else if constexpr (detail::is_owned_struct<E>::value && !std::is_trivially_copyable_v<E>) {
            // The elements it has are kept (their strings' and arrays' storage reused);
            // new ones are default-initialized (see DefaultInit), not value-initialized.
            if (n <= v_.size()) {
                v_.resize(n);
            } else {
                v_.insert(v_.end(), detail::DefaultInits(v_.size()), detail::DefaultInits(n));
            }
        } else if constexpr (std::is_trivially_copyable_v<E> && sizeof(E) >= 64) {
            // Copies of one value-initialized element (plain stores); resize(n) would
            // value-initialize each one, a `rep stos` per element for a large view struct.
            v_.resize(n, E{});
        } else {
            v_.resize(n);
        }
    }
    WIRELENS_HOT E& at(size_t i) noexcept {
        if constexpr (in_arena) {
            return *::new (static_cast<void*>(v_.data() + i)) E;
        } else if constexpr (by_move) {
            (void)i;
            return x_;
        } else {
            return v_[i];
        }
    }
    WIRELENS_HOT void done() {
        if constexpr (by_move) {
            v_.push_back(std::move(x_));
        }
    }

private:
    V& v_;
    // Default-initialized: a generated struct's members all have initializers, so this
    // initializes every member with plain stores (`x_{}` zeroes the whole object first,
    // a `rep stos`).
    std::conditional_t<by_move, E, char> x_;
};

/// What the `*_prefix` decoders return: the value and the bytes it used.
template <class T>
struct Decoded {
    /// `value` default-initialized (a generated struct's members all have initializers):
    /// value-initialization (`T value{}` here, or this struct's implicit constructor called
    /// by std::optional's in-place construction) zeroes the whole struct first, a `rep stos`.
    Decoded() noexcept(std::is_nothrow_default_constructible_v<T>) {
        if constexpr (!std::is_class_v<T>) {
            value = T{};
        }
    }
    T value;
    size_t used = 0;
};

// ---------------------------------------------------------------- UTF-8

namespace detail {
/// The full UTF-8 check from byte `i` on (see utf8_valid_up_to); out of line so the ASCII
/// fast path that precedes it stays small enough to inline.
WIRELENS_NOINLINE inline size_t utf8_valid_from(const uint8_t* s, size_t n, size_t i) noexcept {
    while (i < n) {
        if (n - i >= 8) {
            uint64_t word;
            std::memcpy(&word, s + i, 8);
            if ((word & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        const uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c == 0xE0) {
            len = 3;
            lo = 0xA0;
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            len = 3;
        } else if (c == 0xED) {
            len = 3;
            hi = 0x9F;
        } else if (c == 0xF0) {
            len = 4;
            lo = 0x90;
        } else if (c >= 0xF1 && c <= 0xF3) {
            len = 4;
        } else if (c == 0xF4) {
            len = 4;
            hi = 0x8F;
        } else {
            return i;
        }
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) {
            return i;
        }
        for (size_t k = 2; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return i;
            }
        }
        i += len;
    }
    return n;
}
}  // namespace detail

namespace detail {
/// Whether no byte of s[0..n) has a bit of `mask` set (`mask`: one byte pattern repeated
/// over 8 bytes), tested 16 and 8 bytes at a time and short inputs in two overlapping
/// loads: n when none has, else an offset at or before the first byte that has (where a
/// byte-by-byte look resumes). The ASCII test of UTF-8 and the 00/01 test of bools.
WIRELENS_HOT size_t bytes_clear_up_to(const uint8_t* s, size_t n, uint64_t mask) noexcept {
    size_t i = 0;
    for (; n - i >= 16; i += 16) {
        uint64_t a, b;
        std::memcpy(&a, s + i, 8);
        std::memcpy(&b, s + i + 8, 8);
        if (((a | b) & mask) != 0) {
            return i;
        }
    }
    uint64_t w;
    if (n - i >= 8) {
        // The last 8 bytes (overlapping what was checked): covers 8..15 left in one load.
        uint64_t a, b;
        std::memcpy(&a, s + i, 8);
        std::memcpy(&b, s + n - 8, 8);
        w = a | b;
    } else if (i == n) {
        return n;
    } else if (n >= 8) {
        // Fewer than 8 left after whole 16-byte steps: the last 8 bytes cover them.
        std::memcpy(&w, s + n - 8, 8);
    } else if (n >= 4) {
        // Short strings (most names): two overlapping loads, no byte loop.
        uint32_t a, b;
        std::memcpy(&a, s, 4);
        std::memcpy(&b, s + n - 4, 4);
        w = a | b;
    } else if (n >= 2) {
        uint16_t a, b;
        std::memcpy(&a, s, 2);
        std::memcpy(&b, s + n - 2, 2);
        w = static_cast<uint64_t>(a | b);
    } else {
        w = n == 1 ? s[0] : 0;
    }
    return (w & mask) == 0 ? n : i;
}
}  // namespace detail

/// Length of the longest valid UTF-8 prefix of `s` (== n when all of it is valid).
/// Rejects overlong forms, surrogates and code points above U+10FFFF. ASCII is checked
/// 16 and 8 bytes at a time first; the first non-ASCII byte hands over to the full check.
WIRELENS_HOT size_t utf8_valid_up_to(const uint8_t* s, size_t n) noexcept {
#if defined(WIRELENS_SSE2)
    if (n >= 16) {
        // 16 bytes per test (SSE2, in every x86-64 baseline), the last block overlapping:
        // a 16- or 32-byte name is one test, where the 8-byte words took a loop and a tail
        // (20 instructions per 16-byte name, array_struct).
        typedef char v16 __attribute__((vector_size(16)));
        size_t i = 0;
        for (; n - i > 16; i += 16) {
            v16 b;
            std::memcpy(&b, s + i, 16);  // an unaligned load (movdqu)
            if (__builtin_ia32_pmovmskb128(b) != 0) {  // _mm_movemask_epi8
                return detail::utf8_valid_from(s, n, i);
            }
        }
        v16 last;
        std::memcpy(&last, s + n - 16, 16);
        return __builtin_ia32_pmovmskb128(last) == 0 ? n : detail::utf8_valid_from(s, n, i);
    }
#endif
    const size_t i = detail::bytes_clear_up_to(s, n, 0x8080808080808080ull);
    return i == n ? n : detail::utf8_valid_from(s, n, i);
}

namespace detail {
/// The index of the first byte of p[0..n) that is not a bool (00 or 01), or n: the bytes
/// are tested as ASCII is (a byte loop, 9 % of decoding a small record, branched on every
/// element), and only a failing input is looked at byte by byte.
WIRELENS_HOT size_t bools_valid_up_to(const uint8_t* p, size_t n) noexcept {
    for (size_t i = bytes_clear_up_to(p, n, 0xFEFEFEFEFEFEFEFEull); i < n; ++i) {
        if (p[i] > 1) {
            return i;
        }
    }
    return n;
}

/// Whether short_ascii_after_prefix<Prefix> can test `n` bytes: up to 4, or up to 8 when
/// the 8-byte load ending at s + n starts no earlier than the prefix.
template <size_t Prefix>
constexpr bool short_ascii_fits(size_t n) noexcept {
    return n <= 4 || (n <= 8 && n + Prefix >= 8);
}

/// Whether the `n` bytes at `s` are ASCII (short_ascii_fits<Prefix>(n)), for a string right
/// after its little-endian length prefix of `Prefix` (2 or 4) bytes: one load that ends at
/// s + n and may start in the prefix, shifted so only the string's bytes are tested. Most
/// names are this short, and the general test takes a chain of length compares to reach them.
template <size_t Prefix>
WIRELENS_HOT bool short_ascii_after_prefix(const uint8_t* s, size_t n) noexcept {
    static_assert(Prefix == 2 || Prefix == 4, "a u16 or u32 length prefix");
    constexpr uint64_t high = 0x8080808080808080ull;
    uint64_t w;
    size_t width;
    if (n > 4) {
        std::memcpy(&w, s + n - 8, 8);
        width = 8;
    } else if (n + Prefix >= 4) {
        uint32_t x;
        std::memcpy(&x, s + n - 4, 4);
        w = x;
        width = 4;
    } else {
        uint16_t x;
        std::memcpy(&x, s + n - 2, 2);
        w = x;
        width = 2;
    }
    return ((w >> (8 * (width - n))) & high) == 0;
}
}  // namespace detail

namespace detail {
/// Whether a std::string keeps its characters in its own bytes (the short-string buffer),
/// so that it owns no memory.
inline bool is_inline(const std::string& s) noexcept {
    return address_of(s.data()) - address_of(&s) < sizeof(std::string);
}
}  // namespace detail

namespace detail {
/// new_string for strings longer than the inline buffer: out of line, where the copy is a
/// call to memcpy (inlined into the decoders, g++ -O2 expands it as `rep movsb`, which took
/// 20 ns per string to start on the machines measured).
WIRELENS_NOINLINE inline void new_long_string(std::string& out, const char* p, size_t n) {
    ::new (static_cast<void*>(&out)) std::string(p, n);
}

/// Builds `out` (a new string: empty and inline, so its destructor would do nothing) again
/// in place from p[0..n), as `std::string(p, n)`: it allocates exactly n + 1 bytes for a
/// long one, where assign() calls libstdc++'s out-of-line _M_replace and grows geometrically
/// (a 16-byte name took 31 bytes). A string that fits the inline buffer (up to 15 bytes in
/// libstdc++) is built inline, its copy a call to memcpy.
WIRELENS_HOT void new_string(std::string& out, const char* p, size_t n) {
    if (n <= 15) {
        ::new (static_cast<void*>(&out)) std::string(p, n);
    } else {
        new_long_string(out, p, n);
    }
}
}  // namespace detail

// ---------------------------------------------------------------- CompactString

/// The owned string type of code generated with `[generate.cpp] strings = "compact"`: the
/// same 32 bytes as a libstdc++ `std::string`, but strings of up to 31 bytes are stored
/// inline (std::string: 15), and every member that decoding uses is inline, so decoding a
/// short string neither allocates nor calls into the library. Longer strings live on the
/// heap. Always NUL-terminated (c_str()). Converts to std::string_view; build one from a
/// std::string_view, std::string or C string; compare with any of them.
class CompactString {
public:
    /// The longest string stored inline.
    static constexpr size_t inline_capacity = 31;

    CompactString() noexcept { set_inline_size(0); }
    CompactString(std::string_view s) { init(s.data(), s.size()); }
    CompactString(const std::string& s) { init(s.data(), s.size()); }
    CompactString(const char* s) { init(s, std::strlen(s)); }
    CompactString(const char* s, size_t n) { init(s, n); }
    CompactString(const CompactString& o) {
        if (o.is_heap()) {
            init(o.data(), o.size());
        } else {
            std::memcpy(b_, o.b_, sizeof b_);
        }
    }
    CompactString(CompactString&& o) noexcept {
        std::memcpy(b_, o.b_, sizeof b_);
        o.set_inline_size(0);
    }
    CompactString& operator=(const CompactString& o) {
        if (this != &o) {
            assign(o.data(), o.size());
        }
        return *this;
    }
    CompactString& operator=(CompactString&& o) noexcept {
        if (this != &o) {
            release();
            std::memcpy(b_, o.b_, sizeof b_);
            o.set_inline_size(0);
        }
        return *this;
    }
    CompactString& operator=(std::string_view s) { return assign(s.data(), s.size()); }
    CompactString& operator=(const std::string& s) { return assign(s.data(), s.size()); }
    CompactString& operator=(const char* s) { return assign(s, std::strlen(s)); }
    ~CompactString() { release(); }

    /// Replaces the contents with s[0..n) (which may not point into this string).
    WIRELENS_HOT CompactString& assign(const char* s, size_t n) {
        if (n <= inline_capacity) {
            release();
            detail::copy_short(b_, detail::as_bytes(s), n);
            set_inline_size(n);
        } else if (is_heap() && heap_cap() >= n) {
            char* p = heap_ptr();
            std::memcpy(p, s, n);
            p[n] = '\0';
            store_word(8, n);
        } else {
            release();
            init_heap(s, n);
        }
        return *this;
    }

    size_t size() const noexcept { return is_heap() ? load_word(8) : inline_capacity - b_[inline_capacity]; }
    size_t length() const noexcept { return size(); }
    bool empty() const noexcept { return size() == 0; }
    const char* data() const noexcept { return is_heap() ? heap_ptr() : detail::as_chars(b_); }
    const char* c_str() const noexcept { return data(); }
    const char* begin() const noexcept { return data(); }
    const char* end() const noexcept { return data() + size(); }
    char operator[](size_t i) const noexcept { return data()[i]; }
    /// Whether the contents are on the heap (longer than inline_capacity).
    bool is_heap() const noexcept { return b_[inline_capacity] == heap_tag; }

    operator std::string_view() const noexcept { return std::string_view(data(), size()); }
    std::string_view view() const noexcept { return *this; }
    std::string str() const { return std::string(data(), size()); }

    friend bool operator==(const CompactString& a, const CompactString& b) noexcept { return a.view() == b.view(); }
    friend bool operator==(const CompactString& a, std::string_view b) noexcept { return a.view() == b; }
    friend bool operator==(std::string_view a, const CompactString& b) noexcept { return a == b.view(); }
    friend bool operator==(const CompactString& a, const char* b) noexcept { return a.view() == b; }
    friend bool operator==(const char* a, const CompactString& b) noexcept { return a == b.view(); }
    friend bool operator==(const CompactString& a, const std::string& b) noexcept { return a.view() == b; }
    friend bool operator==(const std::string& a, const CompactString& b) noexcept { return a == b.view(); }
    friend bool operator!=(const CompactString& a, const CompactString& b) noexcept { return !(a == b); }
    friend bool operator!=(const CompactString& a, const std::string& b) noexcept { return !(a == b); }
    friend bool operator!=(const std::string& a, const CompactString& b) noexcept { return !(a == b); }
    friend bool operator!=(const CompactString& a, std::string_view b) noexcept { return !(a == b); }
    friend bool operator!=(std::string_view a, const CompactString& b) noexcept { return !(a == b); }
    friend bool operator!=(const CompactString& a, const char* b) noexcept { return !(a == b); }
    friend bool operator!=(const char* a, const CompactString& b) noexcept { return !(a == b); }
    friend bool operator<(const CompactString& a, const CompactString& b) noexcept { return a.view() < b.view(); }

private:
    // b_[31]: inline, 31 - size (so a 31-byte string's last byte is its NUL terminator);
    // on the heap, heap_tag, with the pointer, size and capacity in bytes 0..24.
    static constexpr uint8_t heap_tag = 0xFF;

    void set_inline_size(size_t n) noexcept {
        b_[n] = 0;
        b_[inline_capacity] = static_cast<uint8_t>(inline_capacity - n);
    }
    size_t load_word(size_t at) const noexcept {
        size_t w;
        std::memcpy(&w, b_ + at, sizeof w);
        return w;
    }
    void store_word(size_t at, size_t w) noexcept { std::memcpy(b_ + at, &w, sizeof w); }
    char* heap_ptr() const noexcept {
        char* p;
        std::memcpy(&p, b_, sizeof p);
        return p;
    }
    size_t heap_cap() const noexcept { return load_word(16); }

    void init(const char* s, size_t n) {
        if (n <= inline_capacity) {
            detail::copy_short(b_, detail::as_bytes(s), n);
            set_inline_size(n);
        } else {
            init_heap(s, n);
        }
    }
    // Out of line: the inline case is the one decoding should inline.
    WIRELENS_NOINLINE void init_heap(const char* s, size_t n) {
        char* p = new char[n + 1];
        std::memcpy(p, s, n);
        p[n] = '\0';
        std::memcpy(b_, &p, sizeof p);
        store_word(8, n);
        store_word(16, n);
        b_[inline_capacity] = heap_tag;
    }
    void release() noexcept {
        if (is_heap()) {
            delete[] heap_ptr();
            set_inline_size(0);
        }
    }

    alignas(8) uint8_t b_[inline_capacity + 1];
};
static_assert(sizeof(CompactString) == 32, "CompactString is 32 bytes");

namespace sdp {
/// Length of the SDP message header: "SDP2" · u16 type id · u32 payload length.
inline constexpr size_t header_len = 10;

/// A checked message header: the type id and where the payload ends in the input.
struct Header {
    uint16_t type_id = 0;
    size_t end = 0;
};
}  // namespace sdp

// ---------------------------------------------------------------- Reader

/// A bounds-checked cursor over the input. Every read checks the bytes left; a failed
/// read records an Error (offset in the input) and returns false/nullptr. Generated code
/// then adds its field path on the way out (`return rd.field("name");`).
class Reader {
public:
    /// `data` may be null only when `len` is 0.
    Reader(const uint8_t* data, size_t len) noexcept
        : data_(data != nullptr ? data : detail::no_bytes), len_(len), end_(len) {}

    size_t position() const noexcept { return at_; }

    /// Limits the memory the decoders may allocate for this input to `bytes` (the elements
    /// of arrays, the bytes of owned strings); beyond it they fail with over_budget.
    /// Unlimited by default. For hosts that read from untrusted peers: a legal message can
    /// make arrays whose elements take far more memory than their bytes on the wire (an
    /// absent optional struct is 1 byte on the wire and sizeof(wirelens::Optional<S>) in memory).
    void set_budget(size_t bytes) noexcept { budget_ = bytes; }
    /// Where arena-mode views allocate their arrays (`Span`s); see Arena.
    void set_arena(Arena* arena) noexcept { arena_ = arena; }

    /// An owned container of arena mode (ArenaString, ArenaVector) about to be filled:
    /// moved to this Reader's arena (empty, so nothing is copied) unless it is there.
    /// Other containers: nothing.
    template <class C>
    WIRELENS_HOT void in_arena(C& c) noexcept {
        if constexpr (detail::arena_allocated<C>::value) {
            using A = typename C::allocator_type;
            if (c.get_allocator() != A(arena_)) {
                if constexpr (std::is_same_v<C, ArenaString>) {
                    c = C(A(arena_));
                } else {
                    // A swap, not a move assignment: vector<bool>'s copies its 40-byte state
                    // with a `rep movs` (g++ -O2), 10 % of decoding a small record.
                    C fresh{A(arena_)};
                    c.swap(fresh);
                }
            }
        }
    }

    /// Charges `count` elements of `each` bytes against the budget.
    WIRELENS_HOT bool charge(size_t count, size_t each) {
        if (each != 0 && count > budget_ / each) {
            over_budget(count, each);
            return false;
        }
        budget_ -= count * each;
        return true;
    }

    /// Prepares `f`'s array for `n` elements (count already checked), charged against the
    /// budget.
    template <class V, bool C>
    WIRELENS_HOT bool elements(Fill<V, C>& f, size_t n) {
        using E = element_t<V>;
        if (!charge(n, sizeof(E))) {
            return false;
        }
        if constexpr (!Fill<V, C>::in_arena) {
            in_arena(f.container());
        }
        if constexpr (Fill<V, C>::in_arena) {
            // An arena-mode view array: its elements are allocated from the arena.
            E* p = nullptr;
            if (n != 0) {
                p = arena_ == nullptr ? nullptr : arena_->allocate<E>(n);
                if (p == nullptr) {
                    no_memory(n, sizeof(E));
                    return false;
                }
            }
            f.start(p, n);
        } else {
            f.start(n);
        }
        return true;
    }
    size_t remaining() const noexcept { return end_ - at_; }
    const uint8_t* data() const noexcept { return data_; }
    const Error& error() const noexcept { return err_; }
    Error take_error() noexcept { return std::move(err_); }

    /// Fails with trailing_bytes unless the whole input was used.
    bool finish() {
        if (at_ != len_) {
            fail_at(ErrorKind::trailing_bytes, at_, len_ - at_);
            return false;
        }
        return true;
    }

    // -- error path, innermost first (generated code: `return rd.index(i0).field("items");`)

    /// Adds a struct field to the error path; returns false.
    WIRELENS_COLD bool field(const char* name) {
        err_.push_field(name);
        return false;
    }
    /// Adds a field of a nested struct that was read inline to the error path.
    WIRELENS_COLD Reader& in_field(const char* name) {
        err_.push_field(name);
        return *this;
    }
    /// Adds an array index to the error path.
    WIRELENS_COLD Reader& index(size_t i) {
        err_.push_index(i);
        return *this;
    }
    /// Returns false (ends an error chain that has no field, at a root value).
    bool fail() const noexcept { return false; }

    // -- reads

    /// The next `n` bytes, bounds-checked once (a whole fixed block); nullptr at the end.
    WIRELENS_HOT const uint8_t* fixed(size_t n) {
        if (n > end_ - at_) {
            end(n);
            return nullptr;
        }
        const uint8_t* p = data_ + at_;
        // data_ is never null (the constructor), so neither is p: callers' `p == nullptr`
        // failure tests then compile to nothing on this path.
        WIRELENS_ASSUME(p != nullptr);
        at_ += n;
        return p;
    }

    /// One primitive (`bool` must be 00 or 01).
    template <class T>
    WIRELENS_HOT bool prim(T& out) {
        const size_t at = at_;
        const uint8_t* p = fixed(wire_size<T>);
        if (p == nullptr) {
            return false;
        }
        if constexpr (std::is_same_v<T, bool>) {
            if (*p > 1) {
                fail_at(ErrorKind::invalid_bool, at, *p);
                return false;
            }
        }
        out = load_le<T>(p);
        return true;
    }

    /// Checks a bool byte at `p` inside a block already returned by fixed() (a run of
    /// members then copied as a whole, see `run_start`).
    WIRELENS_HOT bool block_bool_ok(const uint8_t* p) {
        if (*p > 1) {
            fail_at(ErrorKind::invalid_bool, static_cast<size_t>(p - data_), *p);
            return false;
        }
        return true;
    }

    /// A bool byte at `p` inside a block already returned by fixed().
    WIRELENS_HOT bool block_bool(const uint8_t* p, bool& out) {
        if (*p > 1) {
            fail_at(ErrorKind::invalid_bool, static_cast<size_t>(p - data_), *p);
            return false;
        }
        out = *p == 1;
        return true;
    }

    /// A presence byte: 00 absent, 01 present.
    WIRELENS_HOT bool presence(bool& present) {
        const size_t at = at_;
        const uint8_t* p = fixed(1);
        if (p == nullptr) {
            return false;
        }
        if (*p > 1) {
            fail_at(ErrorKind::invalid_presence, at, *p);
            return false;
        }
        present = *p == 1;
        return true;
    }

    /// An SDP count/length prefix (u32), plausible for elements of at least `min_each` bytes.
    WIRELENS_HOT bool count32(size_t min_each, size_t& n) {
        const size_t start = at_;
        uint32_t c = 0;
        return prim(c) && plausible(start, c, min_each, n);
    }

    /// An ffire count/length prefix (u16), plausible for elements of at least `min_each` bytes.
    WIRELENS_HOT bool count16(size_t min_each, size_t& n) {
        const size_t start = at_;
        uint16_t c = 0;
        return prim(c) && plausible(start, c, min_each, n);
    }

    /// Strings: u32 (SDP) or u16 (ffire) byte length + UTF-8, as a view into the input or
    /// copied into a std::string.
    WIRELENS_HOT bool str32(std::string_view& out) { return str<uint32_t>(out); }
    WIRELENS_HOT bool str16(std::string_view& out) { return str<uint16_t>(out); }
    WIRELENS_HOT bool str32(std::string& out) { return owned_str<uint32_t>(out); }
    WIRELENS_HOT bool str16(std::string& out) { return owned_str<uint16_t>(out); }
    WIRELENS_HOT bool str32(CompactString& out) { return owned_str<uint32_t>(out); }
    WIRELENS_HOT bool str16(CompactString& out) { return owned_str<uint16_t>(out); }
    WIRELENS_HOT bool str32(ArenaString& out) { return owned_str<uint32_t>(out); }
    WIRELENS_HOT bool str16(ArenaString& out) { return owned_str<uint16_t>(out); }

    /// Arrays of primitives: u32 (SDP) or u16 (ffire) count + elements, copied in bulk
    /// into a vector or viewed in place.
    template <class T, class A>
    WIRELENS_HOT bool prims32(std::vector<T, A>& out) {
        size_t n = 0;
        return count32(wire_size<T>, n) && prims(n, out);
    }
    template <class T, class A>
    WIRELENS_HOT bool prims16(std::vector<T, A>& out) {
        size_t n = 0;
        return count16(wire_size<T>, n) && prims(n, out);
    }
    template <class T>
    WIRELENS_HOT bool prims32(LeSpan<T>& out) {
        size_t n = 0;
        return count32(wire_size<T>, n) && prims(n, out);
    }
    template <class T>
    WIRELENS_HOT bool prims16(LeSpan<T>& out) {
        size_t n = 0;
        return count16(wire_size<T>, n) && prims(n, out);
    }

    // -- SDP messages

    /// Reads and checks a message header at the start of the input: magic "SDP", version
    /// '2', type id (`expected`, or any when 0) and a payload length that fits. Reads are
    /// then limited to the payload.
    bool open_message(uint16_t expected, sdp::Header& h) {
        const uint8_t* magic = fixed(3);
        if (magic == nullptr) {
            return false;
        }
        if (magic[0] != 'S' || magic[1] != 'D' || magic[2] != 'P') {
            fail_at(ErrorKind::bad_magic, 0);
            return false;
        }
        uint8_t version = 0;
        uint16_t type_id = 0;
        uint32_t len = 0;
        if (!prim(version)) {
            return false;
        }
        if (version != '2') {
            fail_at(ErrorKind::bad_version, 3, version);
            return false;
        }
        if (!prim(type_id) || !prim(len)) {
            return false;
        }
        if (len > remaining()) {
            fail_at(ErrorKind::length_mismatch, 6, remaining(), len);
            return false;
        }
        if (expected != 0 && type_id != expected) {
            fail_at(ErrorKind::wrong_type_id, 4, type_id, expected);
            return false;
        }
        h.type_id = type_id;
        h.end = at_ + len;
        end_ = h.end;
        return true;
    }

    /// After the payload: it must have used exactly the announced bytes. Lifts the limit.
    bool close_message(const sdp::Header& h) {
        if (at_ != h.end) {
            fail_at(ErrorKind::length_mismatch, at_, at_ - sdp::header_len, h.end - sdp::header_len);
            return false;
        }
        end_ = len_;
        return true;
    }

    /// The error of a dispatcher that knows no struct with this type id.
    static Error unknown_type_id(uint16_t found) { return Error::make(ErrorKind::wrong_type_id, 4, found, 0); }

private:
    /// Records an error; returns false. Cold and out of line: building an Error (it holds a
    /// std::string) stays off the hot paths that call it. Callers write `fail_at(…); return
    /// false;`, not `return fail_at(…);`: g++ 12 took a cold call's result flowing into the
    /// caller's return value as a sign that the whole function (count32 and every decoder
    /// that inlines it) is never executed, and compiled them for size in .text.unlikely
    /// (`rep movsb` copies, less inlining).
    WIRELENS_COLD bool fail_at(ErrorKind kind, size_t offset, uint64_t found = 0, uint64_t expected = 0,
                               uint64_t left = 0) {
        err_ = Error::make(kind, offset, found, expected, left);
        return false;
    }

    /// The arena could not provide `count` elements of `each` bytes (no arena, or the system
    /// refused the memory): over_budget with nothing left.
    WIRELENS_COLD bool no_memory(size_t count, size_t each) {
        const size_t need = count > SIZE_MAX / each ? SIZE_MAX : count * each;
        fail_at(ErrorKind::over_budget, at_, need, 0);
        return false;
    }
    WIRELENS_COLD bool over_budget(size_t count, size_t each) {
        const uint64_t need = static_cast<uint64_t>(count) * each;
        fail_at(ErrorKind::over_budget, at_, count > SIZE_MAX / each ? UINT64_MAX : need, budget_);
        return false;
    }

    WIRELENS_COLD void end(size_t needed) { fail_at(ErrorKind::unexpected_end, at_, 0, needed, end_ - at_); }

    /// A string: length prefix P, then UTF-8. One load of the cursor and one store: the
    /// bytes left are computed once for the prefix and the bytes, and the cursor moves past
    /// both at once. Errors as fixed + count16/32 + utf8 would report them.
    template <class P>
    WIRELENS_HOT bool str(std::string_view& out) {
        const size_t start = at_;
        const size_t rem = end_ - start;
        if (rem < sizeof(P)) {
            end(sizeof(P));
            return false;
        }
        const uint8_t* q = data_ + start;
        const size_t n = load_le<P>(q);
        const size_t left = rem - sizeof(P);
        if (n > left) {
            fail_at(ErrorKind::implausible_count, start, n, 1, left);
            return false;
        }
        const uint8_t* p = q + sizeof(P);
        const size_t good = detail::short_ascii_fits<sizeof(P)>(n) && detail::short_ascii_after_prefix<sizeof(P)>(p, n)
                                ? n
                                : utf8_valid_up_to(p, n);
        if (good != n) {
            at_ = start + sizeof(P) + n;
            fail_at(ErrorKind::invalid_utf8, start + sizeof(P) + good);
            return false;
        }
        // `out` before the cursor: g++ takes a store to a string_view as one that may change
        // at_, and would load at_ back from memory for the next read (a store-to-load
        // round trip on the chain of cursor updates) if the cursor were stored first.
        out = std::string_view(detail::as_chars(p), n);
        at_ = start + sizeof(P) + n;
        return true;
    }

    /// A string copied into `out` (std::string or CompactString), its bytes charged to the budget.
    template <class P, class S>
    WIRELENS_HOT bool owned_str(S& out) {
        std::string_view s;
        if (!str<P>(s) || !charge(s.size(), 1)) {
            return false;
        }
        if constexpr (std::is_same_v<S, ArenaString>) {
            // A string that fits the buffer it has (a new one: its inline buffer) allocates
            // nothing, so it keeps its allocator: moving each onto the arena was 14 % of
            // decoding AudioUnit in arena mode.
            if (s.size() > out.capacity()) {
                in_arena(out);
            }
        } else {
            in_arena(out);
        }
        if constexpr (!std::is_same_v<S, CompactString>) {
            // Into a string at least as long (decoding into a reused value): shortened in
            // place (inline) and overwritten, where assign is a call into libstdc++.
            if (s.size() <= out.size()) {
                out.erase(s.size());
                detail::copy_bytes(out.data(), s.data(), s.size());
                return true;
            }
        }
        if constexpr (std::is_same_v<S, std::string>) {
            // A new string (empty, in its inline buffer: its destructor would free nothing):
            // constructed again in place from the bytes, as `std::string(p, n)` builds one,
            // which allocates exactly n + 1 bytes for a long one. assign() into it is a call
            // into libstdc++'s _M_replace, which grows geometrically (a 16-byte name took 31).
            if (out.empty() && detail::is_inline(out)) {
                detail::new_string(out, s.data(), s.size());
                return true;
            }
        }
        out.assign(s.data(), s.size());
        return true;
    }

    WIRELENS_HOT bool plausible(size_t start, uint64_t count, size_t min_each, size_t& n) {
        const uint64_t each = min_each == 0 ? 1 : min_each;
        const uint64_t left = remaining();
        if (count > left / each) {
            at_ = start;
            fail_at(ErrorKind::implausible_count, start, count, min_each, left);
            return false;
        }
        n = static_cast<size_t>(count);
        return true;
    }

    template <class T>
    WIRELENS_HOT const uint8_t* checked_prims(size_t n) {
        const size_t start = at_;
        const uint8_t* p = fixed(n * wire_size<T>);
        if (p == nullptr) {
            return nullptr;
        }
        if constexpr (std::is_same_v<T, bool>) {
            const size_t i = detail::bools_valid_up_to(p, n);
            if (i != n) {
                fail_at(ErrorKind::invalid_bool, start + i, p[i]);
                err_.push_index(i);
                return nullptr;
            }
        }
        return p;
    }

    template <class T, class A>
    WIRELENS_HOT bool prims(size_t n, std::vector<T, A>& out) {
        const uint8_t* p = checked_prims<T>(n);
        if (p == nullptr) {
            return false;
        }
        // Into the vector's own storage (reused when decoding into an existing value).
        if (!charge(n, sizeof(T))) {
            return false;
        }
        in_arena(out);
        detail::assign_le(out, p, n);
        return true;
    }

    template <class T>
    WIRELENS_HOT bool prims(size_t n, LeSpan<T>& out) {
        const uint8_t* p = checked_prims<T>(n);
        if (p == nullptr) {
            return false;
        }
        out = LeSpan<T>(p, n);
        return true;
    }

    const uint8_t* data_;
    size_t len_;
    size_t end_;
    size_t at_ = 0;
    size_t budget_ = SIZE_MAX;
    Arena* arena_ = nullptr;
    Error err_;
};

// ---------------------------------------------------------------- Fits

/// The length check of the exact-size pass: generated `measure` functions report every
/// string and array length here; a length over the prefix's limit (ffire: 65,535; SDP:
/// 2^32 - 1) makes the value unencodable, so `encoded_size()` returns 0 for it.
class Fits {
public:
    explicit Fits(size_t max) noexcept : max_(max) {}
    void len(size_t n) noexcept {
        if (n > max_) {
            found_ = n;
        }
    }
    explicit operator bool() const noexcept { return found_ == 0; }

private:
    size_t max_;
    size_t found_ = 0;
};

// ---------------------------------------------------------------- Buffer

/// A growable byte buffer for encoding into (`encode(Buffer&)`): unlike
/// `std::vector<uint8_t>`, whose `resize` zero-fills (out of line) every byte before the
/// encoder overwrites it, a Buffer grows by uninitialised bytes that the encoder writes at
/// once (9–16 % of a vector encode, docs/benchmarks/history.md "#14 encode, session 4"), as
/// the C runtime's `wl_buf`. Reuse one across encodes (`clear()` keeps the capacity).
class Buffer {
public:
    Buffer() noexcept = default;
    /// Move-only (copy the bytes with `to_vector()` or `append`).
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept : p_(o.p_), size_(o.size_), cap_(o.cap_) {
        o.p_ = nullptr;
        o.size_ = 0;
        o.cap_ = 0;
    }
    /// A moved-from Buffer is empty, with no storage.
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            std::free(p_);
            p_ = o.p_;
            size_ = o.size_;
            cap_ = o.cap_;
            o.p_ = nullptr;
            o.size_ = 0;
            o.cap_ = 0;
        }
        return *this;
    }
    ~Buffer() { std::free(p_); }

    const uint8_t* data() const noexcept { return p_; }
    uint8_t* data() noexcept { return p_; }
    size_t size() const noexcept { return size_; }
    size_t capacity() const noexcept { return cap_; }
    bool empty() const noexcept { return size_ == 0; }
    const uint8_t* begin() const noexcept { return p_; }
    const uint8_t* end() const noexcept { return p_ + size_; }
    void clear() noexcept { size_ = 0; }
    /// Drops the bytes after the first `n` (no effect when `n >= size()`).
    void truncate(size_t n) noexcept { size_ = std::min(size_, n); }
    /// Room for `n` bytes in all; false when the memory cannot be had.
    bool reserve(size_t n) noexcept {
        if (n <= cap_) {
            return true;
        }
        void* q = std::realloc(p_, n);
        if (q == nullptr) {
            return false;
        }
        p_ = static_cast<uint8_t*>(q);
        cap_ = n;
        return true;
    }
    /// `n` more bytes at the end, not initialised (the caller writes them); nullptr, and
    /// nothing changed, when the memory cannot be had.
    uint8_t* grow(size_t n) noexcept {
        if (n > cap_ - size_ || p_ == nullptr) {
            constexpr size_t max = std::numeric_limits<size_t>::max();
            if (n > max - size_) {
                return nullptr;
            }
            // Geometric, so that records appended one by one stay linear; never empty, so
            // that a zero-byte encoding also gets a valid pointer.
            const size_t want = std::max({size_ + n, cap_ > max / 2 ? size_ + n : 2 * cap_, size_t{64}});
            if (!reserve(want)) {
                return nullptr;
            }
        }
        uint8_t* q = p_ + size_;
        size_ += n;
        return q;
    }
    bool append(const uint8_t* bytes, size_t n) noexcept {
        uint8_t* q = grow(n);
        if (q != nullptr && n != 0) {
            std::memcpy(q, bytes, n);
        }
        return q != nullptr;
    }
    std::vector<uint8_t> to_vector() const { return std::vector<uint8_t>(begin(), end()); }

private:
    uint8_t* p_ = nullptr;
    size_t size_ = 0;
    size_t cap_ = 0;
};

// ---------------------------------------------------------------- Writer

/// Writes an encoding into memory the caller sized with the value's encoded_size() (the
/// exact-size pre-pass of every encode), so individual writes need no checks. Fails only
/// on a string or array longer than its prefix allows (ffire: 65,535), recording why in
/// the caller's Error.
///
/// A Writer is a trivially copyable cursor: generated write_to functions work on a local
/// copy (`Writer w = out;`) and store it back at the end. Bytes stored through the cursor
/// may alias any object (uint8_t is a character type), so with the cursor in the caller's
/// memory the compiler reloads it after every store; a local whose address never escapes
/// stays in a register.
class Writer {
public:
    /// `base` is the offset of `out` in the caller's buffer (for error offsets); a failure
    /// is recorded in `err`.
    Writer(uint8_t* out, size_t base, Error& err) noexcept : start_(out), p_(out), base_(base), err_(&err) {}
    /// A Writer that records no failure (`err` null): for encoders that measured the value
    /// first, whose writes cannot fail; they then build no Error (a std::string) per call.
    Writer(uint8_t* out, size_t base, Error* err) noexcept : start_(out), p_(out), base_(base), err_(err) {}

    size_t written() const noexcept { return static_cast<size_t>(p_ - start_); }
    /// The recorded failure (kind ok when none, or when this Writer records none).
    const Error& error() const noexcept {
        static const Error none;
        return err_ != nullptr ? *err_ : none;
    }

    /// A nested struct, written through a copy of the cursor (so this one's address does
    /// not escape into the call).
    template <class T>
    WIRELENS_HOT bool value(const T& v) {
        Writer t = *this;
        if (!T::write_to(t, v)) {
            return false;
        }
        p_ = t.p_;
        return true;
    }

    /// Reserves `n` bytes for a fixed block; the caller stores into them.
    WIRELENS_HOT uint8_t* block(size_t n) noexcept {
        uint8_t* q = p_;
        p_ += n;
        return q;
    }

    WIRELENS_HOT void put_u8(uint8_t b) noexcept { *p_++ = b; }

    template <class T>
    WIRELENS_HOT void prim(T v) noexcept {
        store_le<T>(p_, v);
        p_ += wire_size<T>;
    }

    /// Length/count prefixes: u32 (SDP) or u16 (ffire, refuses more than 65,535).
    WIRELENS_HOT bool len32(size_t n) {
        if (n > std::numeric_limits<uint32_t>::max()) {
            too_long(err_, base_ + written(), n, std::numeric_limits<uint32_t>::max());
            return false;
        }
        prim<uint32_t>(static_cast<uint32_t>(n));
        return true;
    }
    WIRELENS_HOT bool len16(size_t n) {
        if (n > ffi_max_len) {
            too_long(err_, base_ + written(), n, ffi_max_len);
            return false;
        }
        prim<uint16_t>(static_cast<uint16_t>(n));
        return true;
    }

    WIRELENS_HOT bool str32(std::string_view s) { return len32(s.size()) && raw(s.data(), s.size()); }
    WIRELENS_HOT bool str16(std::string_view s) { return len16(s.size()) && raw(s.data(), s.size()); }

    template <class T, class A>
    WIRELENS_HOT bool prims32(const std::vector<T, A>& v) {
        return len32(v.size()) && prims(v);
    }
    template <class T, class A>
    WIRELENS_HOT bool prims16(const std::vector<T, A>& v) {
        return len16(v.size()) && prims(v);
    }

private:
    // Static: a member would take the cursor's address, which keeps a local copy out of
    // registers.
    static WIRELENS_COLD bool too_long(Error* err, size_t at, size_t n, size_t max) {
        if (err != nullptr) {
            *err = Error::make(ErrorKind::too_long, at, n, max);
        }
        return false;
    }

    /// Copies `n` bytes to the cursor. Runs up to 32 bytes (most strings) are two
    /// overlapping fixed-width copies that stay inside [p, p + n): no libc call.
    WIRELENS_HOT bool raw(const void* src, size_t n) noexcept {
        detail::copy_bytes(p_, src, n);
        p_ += n;
        return true;
    }

    template <class T, class A>
    WIRELENS_HOT bool prims(const std::vector<T, A>& v) noexcept {
        if constexpr (little_endian_host && !std::is_same_v<T, bool>) {
            const size_t n = v.size() * sizeof(T);
            detail::copy_array(p_, v.data(), n);
            p_ += n;
            return true;
        } else if constexpr (std::is_same_v<T, bool>) {
            // Through the iterator: v[i] of a vector<bool> recomputes the word and the mask
            // for every element (23 instructions each, against 12).
            uint8_t* q = p_;
            for (const bool b : v) {
                *q++ = b ? 1 : 0;
            }
            p_ = q;
            return true;
        } else {
            for (size_t i = 0; i < v.size(); ++i) {
                prim<T>(v[i]);
            }
            return true;
        }
    }

    uint8_t* start_;
    uint8_t* p_;
    size_t base_;
    Error* err_;
};

namespace detail {
/// Whether T is one array of primitives (generated `T::bulk(v)` returns it).
template <class T, class = void>
struct has_bulk : std::false_type {};
template <class T>
struct has_bulk<T, std::void_t<decltype(T::bulk(std::declval<const T&>()))>> : std::true_type {};
}  // namespace detail

// ---------------------------------------------------------------- entry points
// Everything built on the per-type functions lives here, once. A generated value type T
// has `static size_t measure(const T&, Fits&)` (the exact size),
// `static bool write_to(Writer&, const T&)`, `static bool read_from(Reader&, T&)` (views
// have read_from only), `static constexpr size_t max_len` (the prefix limit) and, for SDP
// structs, `static constexpr uint16_t MESSAGE_ID`. WIRELENS_VALUE_API / WIRELENS_MESSAGE_API
// below give it its public members.

/// The exact encoded size, or 0 when a string or array is too long for its prefix.
template <class T>
size_t encoded_size(const T& value) noexcept {
    Fits f(T::max_len);
    const size_t n = T::measure(value, f);
    return f ? n : 0;
}

/// The error of a value that cannot be encoded, with the writer's offset and lengths: the
/// value is written into scratch memory of its (unchecked) size until the writer refuses.
template <class T>
Error too_long_error(const T& value, size_t n, size_t base) {
    std::vector<uint8_t> scratch(n);
    Error err;
    Writer w(scratch.data(), base, err);
    (void)T::write_to(w, value);
    return err;
}

namespace detail {
/// The SDP message header of a payload of `n` bytes of T at p.
template <class T>
WIRELENS_HOT void message_header(uint8_t* p, size_t n) noexcept {
    p[0] = 'S';
    p[1] = 'D';
    p[2] = 'P';
    p[3] = '2';
    store_le<uint16_t>(p + 4, T::MESSAGE_ID);
    store_le<uint32_t>(p + 6, static_cast<uint32_t>(n));
}
}  // namespace detail

namespace detail {
/// encode_append into a `std::vector<uint8_t>` or a `Buffer`: one body for both.
template <bool Message, class T, class Out>
Status append_encoding(const T& value, Out& out) {
    constexpr bool vector = std::is_same_v<Out, std::vector<uint8_t>>;
    static_assert(vector || std::is_same_v<Out, Buffer>, "encodes into a std::vector<uint8_t> or a Buffer");
    const size_t start = out.size();
    const size_t head = Message ? sdp::header_len : 0;
    Fits f(T::max_len);
    const size_t n = T::measure(value, f);
    if (!f) {
        return too_long_error(value, n, start + head);
    }
    if (Message && n > std::numeric_limits<uint32_t>::max()) {
        return Error::make(ErrorKind::too_long, start + 6, n, std::numeric_limits<uint32_t>::max());
    }
    // A value that is one array of primitives, into a vector: its elements are appended
    // with one copy after the count, instead of zero-filled by resize() and then overwritten.
    constexpr bool bulk_copy = vector && little_endian_host && detail::has_bulk<T>::value;
    size_t bulk = 0;
    if constexpr (bulk_copy) {
        bulk = T::bulk(value).size() * sizeof(T::bulk(value)[0]);
        if (out.capacity() < start + head + n) {
            // Geometric, as resize() would grow (records appended one by one stay linear).
            out.reserve(std::max(start + head + n, 2 * out.capacity()));
        }
    }
    uint8_t* p;
    if constexpr (vector) {
        out.resize(start + head + n - bulk);
        p = out.data() + start;
    } else {
        // Uninitialised room; a Buffer reports memory it cannot have as an error.
        p = n <= std::numeric_limits<size_t>::max() - head ? out.grow(head + n) : nullptr;
        if (p == nullptr) {
            return Error::make(ErrorKind::buffer_too_small, start, out.capacity(), n);
        }
    }
    if constexpr (Message) {
        detail::message_header<T>(p, n);
    }
    if constexpr (bulk_copy) {
        // The count prefix is what the exact size has besides the elements (u16 or u32).
        const auto& a = T::bulk(value);
        if (n - bulk == 2) {
            store_le<uint16_t>(p + head, static_cast<uint16_t>(a.size()));
        } else {
            store_le<uint32_t>(p + head, static_cast<uint32_t>(a.size()));
        }
        const auto* b = static_cast<const uint8_t*>(static_cast<const void*>(a.data()));
        out.insert(out.end(), b, b + bulk);
        return Status();
    }
    // measure() checked every length, so the writes cannot fail (a failure would be reported
    // as too_long_error describes it).
    Writer w(p + head, start + head, nullptr);
    if (!T::write_to(w, value)) {
        if constexpr (vector) {
            out.resize(start);
        } else {
            out.truncate(start);
        }
        return too_long_error(value, n, start + head);
    }
    return Status();
}

}  // namespace detail

/// Appends the encoding (after an optional SDP message header) to `out`; on error `out`
/// is left as it was.
template <bool Message = false, class T>
Status encode_append(const T& value, std::vector<uint8_t>& out) {
    return detail::append_encoding<Message>(value, out);
}

/// encode_append into a Buffer: the same bytes and errors, without zero-filling first.
template <bool Message = false, class T>
Status encode_append(const T& value, Buffer& out) {
    return detail::append_encoding<Message>(value, out);
}

/// Encodes into `buf`; returns the bytes written. Refuses a buffer smaller than the encoding.
template <class T>
Result<size_t> encode_into(const T& value, uint8_t* buf, size_t cap) {
    Fits f(T::max_len);
    const size_t n = T::measure(value, f);
    if (!f) {
        return too_long_error(value, n, 0);
    }
    if (cap < n) {
        return Error::make(ErrorKind::buffer_too_small, 0, cap, n);
    }
    Writer w(buf, 0, nullptr);
    if (!T::write_to(w, value)) {
        return too_long_error(value, n, 0);
    }
    return Result<size_t>(n);
}

/// The encoding in a new vector of exactly the right size.
template <class T>
Result<std::vector<uint8_t>> to_bytes(const T& value) {
    std::vector<uint8_t> out;
    Status s = encode_append(value, out);
    if (!s) {
        return s.error();
    }
    return Result<std::vector<uint8_t>>(std::move(out));
}

/// Reads one value (owned or view type V) from the start of `rd`'s input into `out`, inside
/// an SDP message of type id `id` when `id` != 0; `exact`: trailing bytes are an error.
namespace detail {
template <class V>
bool read_whole(Reader& rd, V& out, uint16_t id, bool exact) {
    sdp::Header h;
    return (id == 0 || rd.open_message(id, h)) && V::read_from(rd, out) && (id == 0 || rd.close_message(h)) &&
           (!exact || rd.finish());
}
}  // namespace detail

namespace detail {
/// decode_at's owned case, in a function of its own with one return (see read_whole_owned).
template <class V>
Result<Decoded<V>> read_prefix_owned(Reader& rd, uint16_t id, bool exact) {
    Result<Decoded<V>> r(std::in_place);
    if (!read_whole(rd, r->value, id, exact)) {
        r.fail(rd.take_error());
    } else {
        r->used = rd.position();
    }
    return r;
}
}  // namespace detail

/// Decodes one value (owned or view type V) from the start of the input, inside an SDP
/// message of type id `id` when `id` != 0; `exact`: trailing bytes are an error.
/// `arena`: where an arena-mode view allocates its arrays. An owned value is read in place
/// into the returned Result: moving a struct of vectors into it (and destroying the
/// moved-from one) was 8-12 % of decoding a small record. A view is read into a local
/// and moved (cheap), which measured 3-7 % faster for views than in place.
template <class V>
Result<Decoded<V>> decode_at(const uint8_t* data, size_t len, uint16_t id, bool exact, size_t budget = SIZE_MAX,
                             Arena* arena = nullptr) {
    Reader rd(data, len);
    rd.set_budget(budget);
    rd.set_arena(arena);
    if constexpr (detail::is_owned_struct<V>::value) {
        return detail::read_prefix_owned<V>(rd, id, exact);
    } else {
        Decoded<V> d;
        if (!detail::read_whole(rd, d.value, id, exact)) {
            return rd.take_error();
        }
        d.used = rd.position();
        return Result<Decoded<V>>(std::move(d));
    }
}

namespace detail {
/// decode_value's owned case: the value read in place into the returned Result. A function
/// of its own, with one return: inside decode_value, beside the view case's returns (in a
/// discarded `if constexpr` branch), g++ 12 did not construct `r` in the caller's return
/// slot, and copied the whole Result out after reading it (34 instructions and the
/// moved-from Error's destructor for the 141-byte record's 5 vectors).
template <class V>
Result<V> read_whole_owned(Reader& rd, uint16_t id) {
    Result<V> r(std::in_place);
    if (!read_whole(rd, *r, id, true)) {
        r.fail(rd.take_error());
    }
    return r;
}
}  // namespace detail

/// decode_at without the byte count (trailing bytes are an error).
template <class V>
Result<V> decode_value(const uint8_t* data, size_t len, uint16_t id, size_t budget = SIZE_MAX,
                       Arena* arena = nullptr) {
    Reader rd(data, len);
    rd.set_budget(budget);
    rd.set_arena(arena);
    if constexpr (detail::is_owned_struct<V>::value) {
        return detail::read_whole_owned<V>(rd, id);
    } else {
        V value = detail::DefaultInit{};
        if (!detail::read_whole(rd, value, id, true)) {
            return rd.take_error();
        }
        return Result<V>(std::move(value));
    }
}

/// Decodes one value (an owned type V) from the start of the input into `out`, inside an
/// SDP message of type id `id` when `id` != 0; `exact`: trailing bytes are an error. Reuses
/// `out`'s storage: each vector keeps its capacity and the elements it keeps (their strings
/// and vectors keep theirs; std::vector destroys the ones past the new size), so decoding a
/// record of the same shape as the one `out` holds allocates nothing. Returns the bytes
/// used; on error `out` is valid but unspecified.
template <class V>
Result<size_t> decode_into(V& out, const uint8_t* data, size_t len, uint16_t id, bool exact,
                           size_t budget = SIZE_MAX) {
    static_assert(detail::is_owned_struct<V>::value, "decode_into reads owned values; views are cheap to make");
    Reader rd(data, len);
    rd.set_budget(budget);
    if (!detail::read_whole(rd, out, id, exact)) {
        return rd.take_error();
    }
    return Result<size_t>(rd.position());
}

namespace detail {
/// The outcome of `r` without its value.
template <class T>
Status status_of(const Result<T>& r) {
    return r ? Status() : Status(r.error());
}
}  // namespace detail

/// The public members of every generated value type `T` (its view type is `View`). Each is
/// a template (call it without template arguments) so that it is compiled only in the
/// translation units that use it: a header of N structs then costs parsing, not 12·N
/// instantiations of the entry points above (#13: compile cost linear in N). The decoders
/// return `auto` (Result<T>, Result<Decoded<T>>, Result<View>, …): spelled out, each of
/// the N classes' declarations names a Result of its own template parameter, and g++ (12)
/// apparently files those N dependent types under one hash (`spec_hasher` chains), so the
/// header took quadratic time (2,000 structs: 33 s at -O2 instead of 16 s).
#define WIRELENS_VALUE_API(T)                                                                                  \
    WIRELENS_VALUE_COMMON_API(T)                                                                               \
    /** Zero-copy decoders: the View points into `data`. */                                                   \
    template <class Wl_V = View>                                                                               \
    static auto decode_view(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {                      \
        return wirelens::decode_value<Wl_V>(data, len, 0, budget);                                             \
    }                                                                                                          \
    template <class Wl_V = View>                                                                               \
    static auto decode_view_prefix(const uint8_t* data, size_t len,                                           \
                                                                     size_t budget = SIZE_MAX) {              \
        return wirelens::decode_at<Wl_V>(data, len, 0, false, budget);                                         \
    }

/// The members of WIRELENS_VALUE_API but its view decoders.
#define WIRELENS_VALUE_COMMON_API(T)                                                                           \
    /** The exact encoded size; 0 when a string or array is too long to be encoded. */                        \
    template <class WlSelf = T>                                                                                \
    size_t encoded_size() const noexcept {                                                                     \
        return wirelens::encoded_size(static_cast<const WlSelf&>(*this));                                      \
    }                                                                                                          \
    /** Appends the encoding to `out` (no allocation once warm); on error `out` is unchanged. */              \
    template <class WlSelf = T>                                                                                \
    wirelens::Status encode(std::vector<uint8_t>& out) const {                                                \
        return wirelens::encode_append(static_cast<const WlSelf&>(*this), out);                                \
    }                                                                                                          \
    /** The same into a wirelens::Buffer, which grows without zero-filling first. */                           \
    template <class WlSelf = T>                                                                                \
    wirelens::Status encode(wirelens::Buffer& out) const {                                                    \
        return wirelens::encode_append(static_cast<const WlSelf&>(*this), out);                                \
    }                                                                                                          \
    /** Encodes into buf[0..cap); refuses a buffer smaller than encoded_size(). */                            \
    template <class WlSelf = T>                                                                                \
    wirelens::Result<size_t> encode_into(uint8_t* buf, size_t cap) const {                                    \
        return wirelens::encode_into(static_cast<const WlSelf&>(*this), buf, cap);                             \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    wirelens::Result<std::vector<uint8_t>> to_bytes() const {                                                 \
        return wirelens::to_bytes(static_cast<const WlSelf&>(*this));                                          \
    }                                                                                                          \
    /** Decodes exactly one value (trailing bytes are an error); _prefix: also the bytes used. */             \
    /** `budget`: the most memory the decoded value may allocate (Reader::set_budget). */                     \
    template <class WlSelf = T>                                                                                \
    static auto decode(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {                           \
        return wirelens::decode_value<WlSelf>(data, len, 0, budget);                                           \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    static auto decode_prefix(const uint8_t* data, size_t len,                                                \
                                                                     size_t budget = SIZE_MAX) {              \
        return wirelens::decode_at<WlSelf>(data, len, 0, false, budget);                                       \
    }                                                                                                          \
    /** decode / decode_prefix into this value, reusing its vectors' and strings' storage (no */              \
    /** allocation for a record shaped as the one it holds; see decode_into). */                               \
    template <class WlSelf = T>                                                                                \
    wirelens::Status decode_from(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {                 \
        return wirelens::detail::status_of(wirelens::decode_into(static_cast<WlSelf&>(*this), data, len, 0,   \
                                                                 true, budget));                              \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    wirelens::Result<size_t> decode_prefix_from(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {  \
        return wirelens::decode_into(static_cast<WlSelf&>(*this), data, len, 0, false, budget);               \
    }

/// WIRELENS_VALUE_API of code generated with `[generate.cpp] memory = "arena"`: the view
/// decoders take the Arena their arrays are allocated from (the View points into `data`
/// and into `arena`, and dangles once either is gone or the arena is reset); the owned
/// decoders may take one for their strings and arrays (destroy the value before resetting
/// the arena), and use the heap without.
#define WIRELENS_ARENA_VALUE_API(T)                                                                            \
    WIRELENS_VALUE_COMMON_API(T)                                                                               \
    template <class WlSelf = T>                                                                                \
    static auto decode(const uint8_t* data, size_t len, wirelens::Arena& arena, size_t budget = SIZE_MAX) {   \
        return wirelens::decode_value<WlSelf>(data, len, 0, budget, &arena);                                   \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    static auto decode_prefix(const uint8_t* data, size_t len, wirelens::Arena& arena,                        \
                              size_t budget = SIZE_MAX) {                                                      \
        return wirelens::decode_at<WlSelf>(data, len, 0, false, budget, &arena);                               \
    }                                                                                                          \
    template <class Wl_V = View>                                                                               \
    static auto decode_view(const uint8_t* data, size_t len, wirelens::Arena& arena,                          \
                            size_t budget = SIZE_MAX) {                                                        \
        return wirelens::decode_value<Wl_V>(data, len, 0, budget, &arena);                                     \
    }                                                                                                          \
    template <class Wl_V = View>                                                                               \
    static auto decode_view_prefix(const uint8_t* data, size_t len, wirelens::Arena& arena,                   \
                                   size_t budget = SIZE_MAX) {                                                 \
        return wirelens::decode_at<Wl_V>(data, len, 0, false, budget, &arena);                                 \
    }

/// The members of an SDP message ("SDP2" header, type id, length) shared by
/// WIRELENS_MESSAGE_API and WIRELENS_ARENA_MESSAGE_API: the encoders, appending to a vector
/// or a Buffer, and the decoders into an existing value (decode_from).
#define WIRELENS_MESSAGE_COMMON_API(T)                                                                         \
    template <class WlSelf = T>                                                                                \
    wirelens::Status encode_message(std::vector<uint8_t>& out) const {                                        \
        return wirelens::encode_append<true>(static_cast<const WlSelf&>(*this), out);                          \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    wirelens::Status encode_message(wirelens::Buffer& out) const {                                            \
        return wirelens::encode_append<true>(static_cast<const WlSelf&>(*this), out);                          \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    wirelens::Status decode_message_from(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {         \
        return wirelens::detail::status_of(                                                                    \
            wirelens::decode_into(static_cast<WlSelf&>(*this), data, len, MESSAGE_ID, true, budget));          \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    wirelens::Result<size_t> decode_message_prefix_from(const uint8_t* data, size_t len,                      \
                                                        size_t budget = SIZE_MAX) {                            \
        return wirelens::decode_into(static_cast<WlSelf&>(*this), data, len, MESSAGE_ID, false, budget);      \
    }

/// The SDP message members of a generated struct `T` ("SDP2" header, type id, length);
/// templates for the reason given at WIRELENS_VALUE_API.
#define WIRELENS_MESSAGE_API(T)                                                                                \
    WIRELENS_MESSAGE_COMMON_API(T)                                                                             \
    /** `budget`: the most memory the decoded value may allocate (Reader::set_budget). */                      \
    template <class WlSelf = T>                                                                                \
    static auto decode_message(const uint8_t* data, size_t len,                                                \
                                                   size_t budget = SIZE_MAX) {                                 \
        return wirelens::decode_value<WlSelf>(data, len, MESSAGE_ID, budget);                                  \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    static auto decode_message_prefix(const uint8_t* data, size_t len,                                         \
                                                                             size_t budget = SIZE_MAX) {       \
        return wirelens::decode_at<WlSelf>(data, len, MESSAGE_ID, false, budget);                              \
    }                                                                                                          \
    template <class Wl_V = View>                                                                               \
    static auto decode_message_view(const uint8_t* data, size_t len,                                           \
                                                   size_t budget = SIZE_MAX) {                                 \
        return wirelens::decode_value<Wl_V>(data, len, MESSAGE_ID, budget);                                    \
    }

/// WIRELENS_MESSAGE_API with the Arena of `[generate.cpp] memory = "arena"` views.
#define WIRELENS_ARENA_MESSAGE_API(T)                                                                          \
    WIRELENS_MESSAGE_COMMON_API(T)                                                                             \
    template <class WlSelf = T>                                                                                \
    static auto decode_message(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {                   \
        return wirelens::decode_value<WlSelf>(data, len, MESSAGE_ID, budget);                                  \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    static auto decode_message_prefix(const uint8_t* data, size_t len, size_t budget = SIZE_MAX) {            \
        return wirelens::decode_at<WlSelf>(data, len, MESSAGE_ID, false, budget);                              \
    }                                                                                                          \
    template <class WlSelf = T>                                                                                \
    static auto decode_message(const uint8_t* data, size_t len, wirelens::Arena& arena,                       \
                               size_t budget = SIZE_MAX) {                                                     \
        return wirelens::decode_value<WlSelf>(data, len, MESSAGE_ID, budget, &arena);                          \
    }                                                                                                          \
    template <class Wl_V = View>                                                                               \
    static auto decode_message_view(const uint8_t* data, size_t len, wirelens::Arena& arena,                  \
                                    size_t budget = SIZE_MAX) {                                                \
        return wirelens::decode_value<Wl_V>(data, len, MESSAGE_ID, budget, &arena);                            \
    }

// ---------------------------------------------------------------- SDP dispatch

/// Reads the payload of a message whose header `rd` has read as type V, then calls
/// `visit(value)`; returns the type id and the bytes used.
template <class V, class F>
Result<Decoded<uint16_t>> visit_message(Reader& rd, const sdp::Header& h, bool exact, F& visit) {
    V value{};
    if (!V::read_from(rd, value) || !rd.close_message(h) || (exact && !rd.finish())) {
        return rd.take_error();
    }
    Decoded<uint16_t> d;
    d.value = h.type_id;
    d.used = rd.position();
    visit(value);
    return Result<Decoded<uint16_t>>(d);
}

/// The owned type T or its view.
template <bool View, class T>
using owned_or_view = std::conditional_t<View, typename T::View, T>;

/// The public members of a schema's dispatcher `D` (generated as `AnyMessage`), which
/// has `template <bool Wl_View, class Wl_F> static Result<Decoded<uint16_t>> dispatch(const
/// uint8_t*, size_t, bool exact, Wl_F&, size_t budget)`: a switch over the type id. The visitor is called
/// with the decoded value (an lvalue of the struct the type id names, or of its View);
/// the result is the type id (and for _prefix the bytes used). `budget`: the most memory
/// the decoded value may allocate (Reader::set_budget), for messages from untrusted peers.
template <class D>
struct Dispatcher {
    /// Decodes exactly one message of any struct of the schema; trailing bytes are an error.
    template <class F>
    static Result<uint16_t> decode(const uint8_t* data, size_t len, F&& visit, size_t budget = SIZE_MAX) {
        return id_of(D::template dispatch<false>(data, len, true, visit, budget));
    }
    /// Decodes one message from the start of the input.
    template <class F>
    static Result<Decoded<uint16_t>> decode_prefix(const uint8_t* data, size_t len, F&& visit,
                                                   size_t budget = SIZE_MAX) {
        return D::template dispatch<false>(data, len, false, visit, budget);
    }
    /// Zero-copy: the visitor gets the struct's View.
    template <class F>
    static Result<uint16_t> decode_view(const uint8_t* data, size_t len, F&& visit, size_t budget = SIZE_MAX) {
        return id_of(D::template dispatch<true>(data, len, true, visit, budget));
    }
    template <class F>
    static Result<Decoded<uint16_t>> decode_view_prefix(const uint8_t* data, size_t len, F&& visit,
                                                        size_t budget = SIZE_MAX) {
        return D::template dispatch<true>(data, len, false, visit, budget);
    }

private:
    static Result<uint16_t> id_of(const Result<Decoded<uint16_t>>& r) {
        if (!r) {
            return r.error();
        }
        return Result<uint16_t>(r->value);
    }
};

/// Dispatcher of code generated with `[generate.cpp] memory = "arena"`: `D::dispatch` takes
/// one more argument, the Arena of the view decoders (nullptr for owned decoding).
template <class D>
struct ArenaDispatcher {
    template <class F>
    static Result<uint16_t> decode(const uint8_t* data, size_t len, F&& visit, size_t budget = SIZE_MAX) {
        return id_of(D::template dispatch<false>(data, len, true, visit, budget, nullptr));
    }
    template <class F>
    static Result<Decoded<uint16_t>> decode_prefix(const uint8_t* data, size_t len, F&& visit,
                                                   size_t budget = SIZE_MAX) {
        return D::template dispatch<false>(data, len, false, visit, budget, nullptr);
    }
    /// Zero-copy: the visitor gets the struct's View, its arrays in `arena`.
    template <class F>
    static Result<uint16_t> decode_view(const uint8_t* data, size_t len, Arena& arena, F&& visit,
                                        size_t budget = SIZE_MAX) {
        return id_of(D::template dispatch<true>(data, len, true, visit, budget, &arena));
    }
    template <class F>
    static Result<Decoded<uint16_t>> decode_view_prefix(const uint8_t* data, size_t len, Arena& arena, F&& visit,
                                                        size_t budget = SIZE_MAX) {
        return D::template dispatch<true>(data, len, false, visit, budget, &arena);
    }

private:
    static Result<uint16_t> id_of(const Result<Decoded<uint16_t>>& r) {
        if (!r) {
            return r.error();
        }
        return Result<uint16_t>(r->value);
    }
};

}  // namespace wirelens

#endif  // WIRELENS_RUNTIME_HPP
