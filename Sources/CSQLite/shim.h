#ifndef OPENSWIFTDATA_CSQLITE_SHIM_H
#define OPENSWIFTDATA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type openswiftdata_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
/// sqlite3_db_config is variadic, which Swift cannot call: the (int, int*) form of it.
static inline int openswiftdata_db_config_int(sqlite3 *db, int op, int value, int *applied) {
    return sqlite3_db_config(db, op, value, applied);
}
#endif
