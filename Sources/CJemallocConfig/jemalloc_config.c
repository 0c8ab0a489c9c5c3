// jemalloc's options for every executable that links BenchmarkKit (which links jemalloc for its
// allocation counters, so jemalloc serves every malloc of the process). jemalloc reads this
// symbol once, at its first allocation; the MALLOC_CONF environment variable still overrides it.
//
// lg_extent_max_active_fit:20 — jemalloc's default (6) refuses to carve a new slab out of a
// cached free extent more than 64 times its size. A benchmark run frees its objects together,
// they coalesce into one large free extent, and the next run's slabs could not reuse it: every
// run touched fresh pages (a C loop allocating and freeing 300,000 small blocks: 12,000 page
// faults per round under the default, 0 under glibc's malloc and under this setting). Programs
// on Linux run on glibc's malloc, which reuses the memory; with this setting jemalloc does too.
#include "CJemallocConfig.h"

const char *malloc_conf = "lg_extent_max_active_fit:20";

const char *openswiftdata_jemalloc_options(void) { return malloc_conf; }
