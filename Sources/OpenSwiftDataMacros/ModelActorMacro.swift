import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor a `ModelActor` whose jobs run on its own model context.
///
/// - member role: `modelExecutor`, `modelContainer`, `init(modelContainer:)` (a new
///   `ModelContext` on the container, run by a `DefaultSerialModelExecutor`) and
///   `unownedExecutor` (the actor runs on that executor);
/// - extension role: the `ModelActor` conformance, when the actor does not declare it.
///
/// The generated members take the actor's access level (`public`, `package` or none), so a
/// public actor's conformance is satisfied by public members.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actorDecl = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(ModelDiagnostic(.notAnActor).at(node))
            return []
        }
        let access = accessPrefix(of: actorDecl)
        return [
            "\(raw: access)nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: OpenSwiftData.ModelContainer",
            """
            \(raw: access)init(modelContainer: OpenSwiftData.ModelContainer) {
                let modelContext = OpenSwiftData.ModelContext(modelContainer)
                self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
            """
            \(raw: access)nonisolated var unownedExecutor: UnownedSerialExecutor {
                self.modelExecutor._unownedSerialExecutor
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): OpenSwiftData.ModelActor {}")]
    }

    /// `public ` for public actors, `package ` for package actors, else empty.
    private static func accessPrefix(of actorDecl: ActorDeclSyntax) -> String {
        for modifier in actorDecl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}
