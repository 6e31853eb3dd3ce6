//! Shared by every fuzz target: the properties each checks
//! ([`properties`]), a global allocator that aborts on any single
//! allocation over [`MAX_ALLOCATION`] (no field of an input may decide
//! one), and the [`target!`] macro.

pub mod properties;

pub use libfuzzer_sys;
use std::alloc::{GlobalAlloc, Layout, System};

/// The largest single allocation a target may make.
pub const MAX_ALLOCATION: usize = 64 << 20;

struct Bounded;

fn too_large() -> ! {
    use std::io::Write;
    // Unbuffered, and no formatting: neither allocates.
    let _ = std::io::stderr().write_all(b"teeoracle-fuzz: an allocation over 64 MiB\n");
    std::process::abort()
}

// SAFETY: every call is passed on to the system allocator unchanged, after
// a size check that aborts.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            too_large();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            too_large();
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX_ALLOCATION {
            too_large();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Bounded = Bounded;

/// A temporary folder for targets that need files (made once).
pub fn scratch() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let shm = std::path::Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        };
        dir.expect("a temporary folder")
    })
    .path()
}

/// `target!(name)`: a libFuzzer entry point running
/// `properties::name` on each input.
#[macro_export]
macro_rules! target {
    (archive) => {
        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $crate::properties::archive(data, $crate::scratch())
        });
    };
    ($name:ident) => {
        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| $crate::properties::$name(data));
    };
}
