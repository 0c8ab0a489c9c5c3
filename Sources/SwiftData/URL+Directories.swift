// Apple's Foundation has `URL.documentsDirectory`, `.applicationSupportDirectory` and
// `.cachesDirectory`, which apps use to build store URLs; Linux Foundation has none of them.
// On Linux this module supplies them from the XDG directories, so that code compiles unchanged.
#if os(Linux)
    import Foundation
    import OpenSwiftData

    extension URL {
        /// The user's documents directory: `$XDG_DOCUMENTS_DIR`, else the `XDG_DOCUMENTS_DIR`
        /// line of `$XDG_CONFIG_HOME/user-dirs.dirs`, else `$HOME/Documents`.
        public static var documentsDirectory: URL { UserDirectories().documents }

        /// The per-user application data directory: `$XDG_DATA_HOME`, else
        /// `$HOME/.local/share`. Not created here, as on Apple platforms: create it before
        /// writing into it.
        public static var applicationSupportDirectory: URL { UserDirectories().dataHome }

        /// The per-user cache directory: `$XDG_CACHE_HOME`, else `$HOME/.cache`.
        public static var cachesDirectory: URL { UserDirectories().cacheHome }
    }
#endif
