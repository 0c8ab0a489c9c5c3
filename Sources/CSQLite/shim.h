#ifndef OPENSWIFTDATA_CSQLITE_SHIM_H
#define OPENSWIFTDATA_CSQLITE_SHIM_H
/* The session extension (changesets of a transaction, inverted and applied to undo it). The
   system libraries this project links (Debian, Ubuntu, Fedora) are built with it; the functions
   are declared weak below, so a library without it still links and
   openswiftdata_session_available() says so at run time. */
#ifndef SQLITE_ENABLE_SESSION
#define SQLITE_ENABLE_SESSION 1
#endif
#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#endif
#include <sqlite3.h>

#pragma weak sqlite3session_create
#pragma weak sqlite3session_attach
#pragma weak sqlite3session_changeset
#pragma weak sqlite3session_delete
#pragma weak sqlite3changeset_invert
#pragma weak sqlite3changeset_apply

/// Whether the linked SQLite library has the session extension.
static inline int openswiftdata_session_available(void) {
    return sqlite3session_create != 0 && sqlite3session_attach != 0 && sqlite3session_changeset != 0
        && sqlite3session_delete != 0 && sqlite3changeset_invert != 0 && sqlite3changeset_apply != 0;
}

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type openswiftdata_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
/// sqlite3_db_config is variadic, which Swift cannot call: the (int, int*) form of it.
static inline int openswiftdata_db_config_int(sqlite3 *db, int op, int value, int *applied) {
    return sqlite3_db_config(db, op, value, applied);
}
#endif
