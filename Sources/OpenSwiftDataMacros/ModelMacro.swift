import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model.
///
/// - member role: backing storage, `persistentBackingData`, `init(backingData:)`,
///   `schemaMetadata`, `_$entityConstraints` and `_$absorbPendingValues()` (see
///   ``ModelMembers``);
/// - member-attribute role: `@OpenSwiftData._PersistedProperty(slot, "Class")` on each
///   persisted `var`;
/// - extension role: `PersistentModel` and `Observable` conformances (only those the compiler
///   asks for, so a subclass of a model gets none).
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    // MARK: Member

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = validClass(declaration, attribute: node, context: context) else {
            return []
        }
        let scan = PropertyScanner.scan(classDecl, modelClassNames: modelClassNames(near: classDecl))
        for diagnostic in scan.diagnostics { context.diagnose(diagnostic) }
        let isBase =
            names(protocols, contain: "PersistentModel")
            || declaresPersistentModelDirectly(classDecl)
        let members = ModelMembers(
            className: classDecl.name.text, suffix: suffix(of: classDecl),
            access: accessPrefix(of: classDecl), isBase: isBase, scan: scan)
        return members.declarations()
    }

    // MARK: Member attribute

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
            classDecl.genericParameterClause == nil,
            let variable = member.as(VariableDeclSyntax.self),
            variable.bindingSpecifier.tokenKind == .keyword(.var),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let name = PropertyScanner.identifier(of: binding)
        else { return [] }
        let scan = PropertyScanner.scan(classDecl)
        guard let property = scan.property(named: name), !property.isConstant else { return [] }
        let owner = StringLiteralExprSyntax(content: suffix(of: classDecl))
        return [
            AttributeSyntax(
                "@OpenSwiftData._PersistedProperty(\(literal: property.index), \(owner))")
        ]
    }

    // MARK: Extension

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
            classDecl.genericParameterClause == nil
        else { return [] }
        var extensions: [ExtensionDeclSyntax] = []
        if names(protocols, contain: "PersistentModel") {
            extensions.append(
                try ExtensionDeclSyntax(
                    "extension \(type.trimmed): OpenSwiftData.PersistentModel {}"))
        }
        if names(protocols, contain: "Observable") {
            extensions.append(
                try ExtensionDeclSyntax(
                    "extension \(type.trimmed): Observation.Observable {}"))
        }
        return extensions
    }

    // MARK: Helpers

    /// The class declaration if `@Model` may expand on it; otherwise diagnoses and returns nil.
    private static func validClass(
        _ declaration: some DeclGroupSyntax, attribute: AttributeSyntax,
        context: some MacroExpansionContext
    ) -> ClassDeclSyntax? {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(ModelDiagnostic(.notAClass).at(attribute))
            return nil
        }
        if let generics = classDecl.genericParameterClause {
            context.diagnose(ModelDiagnostic(.genericClass).at(generics))
            return nil
        }
        return classDecl
    }

    /// Whether any of `types` is `name` or `Module.name`.
    private static func names(_ types: [TypeSyntax], contain name: String) -> Bool {
        types.contains { PropertyScanner.lastComponent(of: $0) == name }
    }

    /// `@Model final class C: PersistentModel` — the user wrote the conformance, so the compiler
    /// does not list it, but the class is still a root model.
    private static func declaresPersistentModelDirectly(_ classDecl: ClassDeclSyntax) -> Bool {
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first else { return true }
        return PropertyScanner.lastComponent(of: first.type) == "PersistentModel"
    }

    /// The class name without backticks, used in generated member names and the owner literal.
    static func suffix(of classDecl: ClassDeclSyntax) -> String {
        classDecl.name.identifier?.name ?? classDecl.name.text
    }

    /// `public ` for public/open classes, `package ` for package classes, else empty.
    private static func accessPrefix(of classDecl: ClassDeclSyntax) -> String {
        for modifier in classDecl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// Names of `@Model` classes in the same source file as `classDecl` (when the compiler
    /// gives the macro the whole file), including `classDecl` itself.
    private static func modelClassNames(near classDecl: ClassDeclSyntax) -> Set<String> {
        let collector = ModelClassCollector(viewMode: .sourceAccurate)
        collector.walk(classDecl.root)
        collector.names.insert(suffix(of: classDecl))
        return collector.names
    }
}

/// Collects the names of classes marked `@Model` in a syntax tree.
private final class ModelClassCollector: SyntaxVisitor {
    var names: Set<String> = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let isModel = node.attributes.contains { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return false }
            return PropertyScanner.lastComponent(of: attribute.attributeName) == "Model"
        }
        if isModel { names.insert(node.name.identifier?.name ?? node.name.text) }
        return .visitChildren
    }
}
