@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// Resolves the macro implementation types that `Sources/OpenSwiftData/Model/Macros.swift`
/// names in its `#externalMacro(module: "OpenSwiftDataMacros", type: ...)` declarations.
struct OpenSwiftDataPluginProvider: PluginProvider {
    /// Every macro type this plugin provides, by the name the declarations use.
    static var macros: [String: any Macro.Type] { [
        "ModelMacro": ModelMacro.self,
        "PersistedPropertyMacro": PersistedPropertyMacro.self,
        "AttributeMacro": AttributeMacro.self,
        "RelationshipMacro": RelationshipMacro.self,
        "TransientMacro": TransientMacro.self,
        "UniqueMacro": UniqueMacro.self,
        "IndexMacro": IndexMacro.self,
    ] }

    /// Errors the provider reports to the compiler.
    struct UnknownMacro: Error, CustomStringConvertible {
        let moduleName: String
        let typeName: String
        var description: String { "OpenSwiftDataMacros has no macro '\(moduleName).\(typeName)'" }
    }

    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        guard let macro = Self.macros[typeName] else {
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
