#ifndef OPENSWIFTDATA_CJEMALLOC_CONFIG_H
#define OPENSWIFTDATA_CJEMALLOC_CONFIG_H

/// The options BenchmarkKit's executables give jemalloc (`malloc_conf`), as jemalloc reads them.
const char *openswiftdata_jemalloc_options(void);

#endif
