// --memory-limit and --time-limit: exhaustion becomes exit 3 with what to raise.
#pragma once
#include <string>

namespace isocheck {

// "512M", "8G", "1073741824" -> bytes; throws UsageError.
unsigned long long parse_bytes(const std::string& s, const char* option);
// "90", "90s", "5m", "2h" -> seconds; throws UsageError.
double parse_seconds(const std::string& s, const char* option);

// Caps the address space (bad_alloc past it, caught by main as exit 3).
void apply_memory_limit(unsigned long long bytes);
unsigned long long memory_limit();  // 0 = none set
// After `seconds`, prints which stage was running and exits 3.
void apply_time_limit(double seconds);
// The stage name the time-limit message reports.
void set_stage(const char* stage);
const char* current_stage();

}  // namespace isocheck
