// Floor rows for the upstream-bench kit's C/C++ process (bench/upstream-floor/run links this
// translation unit into a copy of the kit's harness): per data set, a copy of the value that
// the default wirelens C++ owned decode returns (T's copy constructor, the copy destroyed
// inside the timed loop), the allocations and byte copies that any owned decode into new
// std::string / std::vector members makes. Registered from a static initializer, so the
// rows are timed in the same process and interleaved rounds as the kit's upstream and
// wirelens rows (side "floor-C++", op "decode").
#include "array_int.hpp"
#include "array_string.hpp"
#include "array_struct.hpp"
#include "arrays.hpp"
#include "audiounit.hpp"
#include "bench.hpp"
#include "complex.hpp"

namespace {
template <class T>
void reg_floor(const char* ds, const char* rel) {
    add(ds, "floor-C++", "decode", "T(const T&): copy of the decoded value (destroyed each iteration)",
        [ds, rel](size_t n_) {
            static const T* value = [&] {
                const std::vector<uint8_t>& golden = *golden_of(ds, rel);
                auto r = T::decode(golden.data(), golden.size());
                if (!r) die("%s: floor: decode failed", ds);
                return new T(std::move(*r));
            }();
            for (size_t i_ = 0; i_ < n_; ++i_) {
                T c(*value);
                keep(c);
                clobber();
            }
        });
}

struct Init {
    Init() {
        reg_floor<audiounit::PluginRegistry>("sdp/audiounit_full", "sdp/cases/audiounit_full.bin");
        reg_floor<arrays::ArraysOfPrimitives>("sdp/arrays_primitives_first", "sdp/cases/arrays_primitives_first.bin");
        reg_floor<complex::PluginListMessage>("ffi/complex", "ffi/cases/complex.decla.bin");
        reg_floor<array_int::IntListMessage>("ffi/array_int", "ffi/cases/array_int.decla.bin");
        reg_floor<array_struct::DeviceListMessage>("ffi/array_struct", "ffi/cases/array_struct.decla.bin");
        reg_floor<array_string::StringListMessage>("ffi/array_string", "ffi/cases/array_string.decla.bin");
    }
} init;
}  // namespace
