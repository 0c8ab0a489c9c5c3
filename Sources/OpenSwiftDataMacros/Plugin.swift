import SwiftSyntaxMacros

#if OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX
    @_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
#else
    import SwiftCompilerPlugin
#endif

/// Every macro type this plugin provides; the declarations in `Sources/OpenSwiftData/Model/Macros.swift`
/// name them in `#externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")` etc.
enum MacroCatalog {
    static var all: [any Macro.Type] {
        [
            ModelMacro.self, PersistedPropertyMacro.self, AttributeMacro.self, RelationshipMacro.self,
            TransientMacro.self, UniqueMacro.self, IndexMacro.self, ModelActorMacro.self,
        ]
    }
}

#if OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX
    // The toolchain's swift-syntax (`OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX=1`, see Package.swift) has
    // no SwiftCompilerPlugin module: serve the compiler with the message listener it is built on.

    /// Resolves the macro implementation types by name.
    struct OpenSwiftDataPluginProvider: PluginProvider {
        /// Errors the provider reports to the compiler.
        struct UnknownMacro: Error, CustomStringConvertible {
            let moduleName: String
            let typeName: String
            var description: String { "OpenSwiftDataMacros has no macro '\(moduleName).\(typeName)'" }
        }

        func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
            guard let macro = MacroCatalog.all.first(where: { "\($0)" == typeName }) else {
                throw UnknownMacro(moduleName: moduleName, typeName: typeName)
            }
            return macro
        }
    }

    /// The compiler plugin executable: serves macro expansion requests over stdin/stdout.
    @main
    struct OpenSwiftDataPlugin {
        static func main() throws {
            let connection = try StandardIOMessageConnection()
            let listener = CompilerPluginMessageListener(
                connection: connection, provider: OpenSwiftDataPluginProvider())
            try listener.main()
        }
    }
#else
    /// The compiler plugin executable (the swift-syntax package's `CompilerPlugin` entry point).
    @main
    struct OpenSwiftDataPlugin: CompilerPlugin {
        var providingMacros: [any Macro.Type] { MacroCatalog.all }
    }
#endif
