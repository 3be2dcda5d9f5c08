// The memory allocator every isocheck binary runs on: jemalloc, configured in
// allocator.cpp. These are the few places the code talks to it.
#pragma once
#include <string>

namespace isocheck {

// Hands the pages of freed memory back to the kernel now. The allocator keeps
// freed pages for reuse until told (that is its point: see allocator.cpp),
// so the resident size counts them until then; call this where the resident
// size must be the memory in use (before a memory limit is judged) or after a
// stage that freed most of what it held.
void release_free_memory();

// "jemalloc 5.3.0-0-g… (oversize threshold 0, dirty decay -1 ms, retain off)", for --version.
std::string allocator_text();

// The allocator's settings as this binary runs with them, by jemalloc's
// names: a text setting ("opt.thp" -> "default"; "" when there is none), a
// size ("opt.oversize_threshold" -> 0; -1 when there is none) and a signed
// size ("opt.dirty_decay_ms" -> -1; INT64_MIN when there is none), and a
// yes/no ("opt.retain" -> false; false when there is none). For
// --version, and for the tests that the configuration took.
std::string allocator_text_setting(const char* name);
long long allocator_size_setting(const char* name);
long long allocator_ssize_setting(const char* name);
bool allocator_bool_setting(const char* name);

}  // namespace isocheck
