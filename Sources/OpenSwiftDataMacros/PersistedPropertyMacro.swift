import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@OpenSwiftData._PersistedProperty(slot, "Class")`, attached by `@Model` to each persisted
/// `var`: turns it into accessors over the model's backing data.
///
/// - peer: `private var _$name: OpenSwiftData._NoStorage` — zero-sized storage that the `init`
///   accessor initialises, so definite initialisation tracks the property;
/// - accessors: an `init` accessor (so user initialisers can assign `self.name = name` before
///   the backing data exists), `get` and `set` through slot `Class._$slotBase_Class + slot`.
///   The first `init` accessor to run makes the storage with room for `Class._$slotEnd_Class`
///   slots (all of the class's).
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    /// What the attribute and its variable say.
    private struct Target {
        var slot: String
        var owner: String
        var name: String
        var keyPathName: String
    }

    /// Reads the slot, owner and property; reports problems through `report`.
    private static func target(
        _ node: AttributeSyntax, _ declaration: some DeclSyntaxProtocol,
        report: (Diagnostic) -> Void
    ) -> Target? {
        guard case .argumentList(let arguments) = node.arguments, arguments.count == 2,
            let slot = arguments.first?.expression.as(IntegerLiteralExprSyntax.self),
            let owner = arguments.last?.expression.as(StringLiteralExprSyntax.self)?
                .representedLiteralValue
        else {
            report(ModelDiagnostic(.badPersistedPropertyArguments).at(node))
            return nil
        }
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let name = PropertyScanner.identifier(of: binding),
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            report(ModelDiagnostic(.persistedPropertyNotAVar).at(node))
            return nil
        }
        return Target(
            slot: slot.literal.text, owner: owner, name: name,
            keyPathName: pattern.identifier.text)
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // Diagnostics are reported once, by the accessor role.
        guard let target = target(node, declaration, report: { _ in }) else { return [] }
        return ["private var _$\(raw: target.name): OpenSwiftData._NoStorage"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let target = target(node, declaration, report: context.diagnose) else { return [] }
        let owner = target.owner
        let storage = "_$storage_\(owner)"
        let live = "_$live_\(owner)"
        let slot = "\(owner)._$slotBase_\(owner) + \(target.slot)"
        let slotEnd = "\(owner)._$slotEnd_\(owner)"
        let keyPath = "\\\(owner).\(target.keyPathName)"
        return [
            """
            @storageRestrictions(accesses: \(raw: storage), initializes: _$\(raw: target.name))
            init(initialValue) {
                OpenSwiftData.BackingData._initialize(
                    &\(raw: storage), slot: \(raw: slot), value: initialValue, slotCount: \(raw: slotEnd))
                _$\(raw: target.name) = OpenSwiftData._NoStorage()
            }
            """,
            """
            get {
                \(raw: live)._getValue(self, \(raw: slot), \(raw: keyPath))
            }
            """,
            """
            set {
                \(raw: live)._setValue(self, \(raw: slot), \(raw: keyPath), newValue)
            }
            """,
        ]
    }
}
