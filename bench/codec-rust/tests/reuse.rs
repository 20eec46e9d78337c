//! `decode_into` reuses the value's storage: decoding the golden AudioUnit registry again
//! into the value that holds it allocates nothing, while `decode` allocates for every
//! `String` and `Vec` (so the counting allocator of this test binary works). After a
//! smaller record in between, the value is the same again, with fewer allocations than a
//! fresh decode (the elements the smaller record dropped are built anew; the `Vec`s
//! themselves keep their capacity).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use wirelens_bench_codec::{fast, read_case};
use wirelens_runtime::Message as _;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = f();
    (out, ALLOCATIONS.load(Ordering::Relaxed) - before)
}

#[test]
fn decode_into_a_value_of_the_same_shape_allocates_nothing() {
    use fast::audiounit::PluginRegistry;
    let full = read_case("sdp/cases/audiounit_full.bin");
    let small = read_case("sdp/cases/audiounit_small.bin");
    let (fresh, fresh_allocs) = allocations(|| PluginRegistry::decode(&full).expect("decodes"));
    assert!(
        fresh_allocs > 1000,
        "decode should allocate per string and array: {fresh_allocs}"
    );

    let mut reg = PluginRegistry::default();
    reg.decode_into(&full).expect("decodes");
    assert_eq!(reg, fresh);
    let (r, again) = allocations(|| reg.decode_into(&full));
    r.expect("decodes");
    assert_eq!(reg, fresh);
    assert_eq!(again, 0, "decoding the same record again into the value allocated");

    reg.decode_into(&small).expect("decodes");
    assert_eq!(reg, PluginRegistry::decode(&small).expect("decodes"));
    let (r, back) = allocations(|| reg.decode_into(&full));
    r.expect("decodes");
    assert_eq!(reg, fresh);
    assert!(
        back < fresh_allocs,
        "after a smaller record: {back} allocations, fresh {fresh_allocs}"
    );
}
