// libFuzzer harness for the generated C++ decoders of every golden schema (see
// harness.c; the same `targets.inc` order). Built with clang++
// -fsanitize=fuzzer,address,undefined -fno-exceptions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "all.hpp"

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "CHECK failed in %s: %s (line %d)\n", name, #cond, __LINE__); \
            std::abort();                                                                     \
        }                                                                                     \
    } while (0)

template <class T>
static void reencode(const char* name, const T& v, const uint8_t* b, size_t n) {
    CHECK(v.encoded_size() == n);
    std::vector<uint8_t> out;
    CHECK(v.encode(out).ok());
    CHECK(out == std::vector<uint8_t>(b, b + n));
    std::vector<uint8_t> buf(n + 1);
    auto w = v.encode_into(buf.data(), n);
    CHECK(w.ok() && w.value() == n);
    if (n > 0) CHECK(!v.encode_into(buf.data(), n - 1).ok());
    auto bytes = v.to_bytes();
    CHECK(bytes.ok() && bytes.value() == out);
}

template <class T>
static void byte_mode(const char* name, const uint8_t* b, size_t n) {
    auto owned = T::decode(b, n);
    auto view = T::decode_view(b, n);
    CHECK(owned.ok() == view.ok());
    if (owned.ok()) reencode(name, owned.value(), b, n);
    auto p = T::decode_prefix(b, n);
    auto vp = T::decode_view_prefix(b, n);
    CHECK(p.ok() == vp.ok());
    if (p.ok()) {
        size_t used = p.value().used;
        CHECK(used <= n && vp.value().used == used);
        CHECK(owned.ok() == (used == n));
        reencode(name, p.value().value, b, used);
    } else {
        CHECK(!owned.ok());
    }
}

template <class T, class Any>
static void message_mode(const char* name, const uint8_t* b, size_t n) {
    auto owned = T::decode_message(b, n);
    auto view = T::decode_message_view(b, n);
    CHECK(owned.ok() == view.ok());
    if (owned.ok()) {
        std::vector<uint8_t> out;
        CHECK(owned.value().encode_message(out).ok());
        CHECK(out == std::vector<uint8_t>(b, b + n));
    }
    auto p = T::decode_message_prefix(b, n);
    if (p.ok()) {
        CHECK(p.value().used <= n && owned.ok() == (p.value().used == n));
    } else {
        CHECK(!owned.ok());
    }
    std::vector<uint8_t> out;
    bool encoded = false;
    auto any = Any::decode(b, n, [&](const auto& m) { encoded = m.encode_message(out).ok(); });
    if (owned.ok()) CHECK(any.ok() && any.value() == T::MESSAGE_ID);
    if (any.ok()) {
        CHECK(encoded);
        CHECK(out == std::vector<uint8_t>(b, b + n));
    }
}

using target_fn = void (*)(const char*, const uint8_t*, size_t);
struct Target {
    const char* name;
    target_fn run;
};

#define BYTE(M, T) {#M "." #T, byte_mode<M::T>},
#define MESSAGE(M, T) {#M "." #T " message", message_mode<M::T, M::AnyMessage>},
static const Target TARGETS[] = {
#include "targets_cpp.inc"
};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    size_t count = sizeof TARGETS / sizeof TARGETS[0];
    const Target& t = TARGETS[(size_t(data[0]) | size_t(data[1]) << 8) % count];
    std::vector<uint8_t> copy(data + 2, data + size);
    t.run(t.name, copy.data(), copy.size());
    return 0;
}
