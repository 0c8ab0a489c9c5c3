#ifndef OPENSWIFTDATA_CJEMALLOC_SHIM_H
#define OPENSWIFTDATA_CJEMALLOC_SHIM_H
#include <jemalloc/jemalloc.h>
#endif
