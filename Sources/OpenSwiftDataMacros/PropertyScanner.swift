import SwiftDiagnostics
import SwiftSyntax

/// One persisted property of a `@Model` class: a stored instance `var` (which gets accessors)
/// or a stored instance `let` (a constant: persisted, but left as a plain stored property).
struct PersistedProperty {
    /// The property's name as written (without backticks).
    var name: String
    /// The declared type, or the type of a literal default; `nil` when the compiler infers it
    /// from the default (`var sights = [Sight]()`, `let id = UUID()`): the generated code then
    /// never spells it, and the schema reads the type from the property's key path.
    var type: TypeSyntax?
    /// The default value expression, if the declaration has one.
    var initializer: ExprSyntax?
    /// Whether this is a `let`.
    var isConstant: Bool
    /// The slot index among the class's own persisted properties (vars and lets share it).
    var index: Int
    /// The `@Attribute(...)` written on the property, if any.
    var attribute: AttributeSyntax?
    /// The `@Relationship(...)` written on the property, if any.
    var relationship: AttributeSyntax?
    /// Whether the property is a to-many relationship (an array or set of models).
    var isToMany: Bool
}

/// One key-path group of a `#Unique` or `#Index` declaration, e.g. `[\.a, \.b]`.
struct ConstraintGroup {
    /// The property names in the group, in order.
    var names: [String]
    /// The key path literal each name came from (for diagnostics).
    var keyPaths: [KeyPathExprSyntax]
}

/// The syntactic analysis of a `@Model` class body that every role of the macro shares, so
/// the member, member-attribute and extension expansions agree on slots and names.
struct ModelScan {
    /// The persisted properties in declaration (= slot) order.
    var persisted: [PersistedProperty] = []
    /// Names of stored or computed properties that are not persisted (transient, computed,
    /// ignored, invalid).
    var nonPersisted: Set<String> = []
    /// `#Unique` groups.
    var unique: [ConstraintGroup] = []
    /// `#Index` groups.
    var indices: [ConstraintGroup] = []
    /// Problems found while scanning.
    var diagnostics: [Diagnostic] = []

    /// The persisted property called `name`, if there is one.
    func property(named name: String) -> PersistedProperty? {
        persisted.first { $0.name == name }
    }
}

/// Walks the members of a class declaration and classifies its properties.
///
/// The scan is purely syntactic: a property is persisted if it is a stored instance `var` or
/// `let` with one identifier, no `get`/`set` accessors, and no `@Transient`/`@ObservationIgnored`.
enum PropertyScanner {
    /// Scans `decl`. `modelClassNames` are `@Model` classes visible in the same source file
    /// (used to recognise `[Other]` as a to-many relationship without `@Relationship`).
    static func scan(_ decl: some DeclGroupSyntax, modelClassNames: Set<String> = []) -> ModelScan {
        var scan = ModelScan()
        for item in decl.memberBlock.members {
            if let variable = item.decl.as(VariableDeclSyntax.self) {
                scanVariable(variable, into: &scan, modelClassNames: modelClassNames)
            } else if let expansion = item.decl.as(MacroExpansionDeclSyntax.self) {
                scanConstraint(expansion, into: &scan)
            } else if let ifConfig = item.decl.as(IfConfigDeclSyntax.self),
                containsVariables(ifConfig)
            {
                scan.diagnostics.append(
                    ModelDiagnostic(.conditionalMembers, severity: .warning).at(
                        ifConfig.clauses.first?.poundKeyword ?? ifConfig.poundEndif))
            }
        }
        validateConstraints(decl, &scan)
        return scan
    }

    // MARK: Properties

    private static func scanVariable(
        _ variable: VariableDeclSyntax, into scan: inout ModelScan,
        modelClassNames: Set<String>
    ) {
        let modifiers = variable.modifiers.map(\.name.tokenKind)
        if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class)) { return }
        let names = variable.bindings.compactMap { identifier(of: $0) }
        let isTransient = hasAttribute(variable, named: "Transient")
        let isIgnored = hasAttribute(variable, named: "ObservationIgnored")
        if isTransient || isIgnored {
            scan.nonPersisted.formUnion(names)
            checkHasDefault(
                variable, attribute: isTransient ? "Transient" : "ObservationIgnored",
                into: &scan)
            return
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let name = identifier(of: binding)
        else {
            if variable.bindings.contains(where: { isStored($0) }) {
                scan.diagnostics.append(ModelDiagnostic(.multipleBindings).at(variable.bindings))
            }
            scan.nonPersisted.formUnion(names)
            return
        }
        if name.hasPrefix("_$") { return }
        if let accessors = binding.accessorBlock {
            if isStored(binding) {
                scan.diagnostics.append(ModelDiagnostic(.propertyObservers(name)).at(accessors))
            }
            scan.nonPersisted.insert(name)
            return
        }
        if modifiers.contains(.keyword(.lazy)) {
            let lazy = variable.modifiers.first { $0.name.tokenKind == .keyword(.lazy) }!
            scan.diagnostics.append(ModelDiagnostic(.lazyProperty(name)).at(lazy))
            scan.nonPersisted.insert(name)
            return
        }
        if name == "description" {
            scan.diagnostics.append(ModelDiagnostic(.reservedName(name)).at(binding.pattern))
            scan.nonPersisted.insert(name)
            return
        }
        let initializer = binding.initializer?.value
        // Without an annotation or a default the compiler rejects the declaration itself.
        guard binding.typeAnnotation != nil || initializer != nil else {
            scan.diagnostics.append(ModelDiagnostic(.missingTypeAnnotation(name)).at(binding.pattern))
            scan.nonPersisted.insert(name)
            return
        }
        let type = binding.typeAnnotation?.type.trimmed ?? initializer.flatMap(inferType)
        let isConstant = variable.bindingSpecifier.tokenKind == .keyword(.let)
        if isConstant, let initializer {
            scan.diagnostics.append(ModelDiagnostic(.constantWithDefault(name), severity: .warning).at(initializer))
        }
        let relationship = attribute(variable, named: "Relationship")
        let elementName = type.flatMap(collectionElementName) ?? initializer.flatMap(constructedElementName)
        let isToMany =
            elementName != nil
            && (relationship != nil || modelClassNames.contains(elementName!))
        scan.persisted.append(
            PersistedProperty(
                name: name, type: type, initializer: initializer?.trimmed,
                isConstant: isConstant,
                index: scan.persisted.count,
                attribute: attribute(variable, named: "Attribute"),
                relationship: relationship, isToMany: isToMany))
    }

    /// A property `@Model` leaves alone must still be initialised by `init(backingData:)`, so it
    /// needs a default (an optional `var` defaults to `nil`).
    private static func checkHasDefault(
        _ variable: VariableDeclSyntax, attribute: String,
        into scan: inout ModelScan
    ) {
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        for binding in variable.bindings where isStored(binding) && binding.initializer == nil {
            guard let name = identifier(of: binding) else { continue }
            if !isLet, let type = binding.typeAnnotation?.type, isOptional(type) { continue }
            let kind: ModelDiagnostic.Kind =
                attribute == "Transient"
                ? .transientWithoutDefault(name) : .ignoredWithoutDefault(name)
            scan.diagnostics.append(ModelDiagnostic(kind).at(binding))
        }
    }

    /// The identifier a binding declares, without backticks; `nil` for tuple patterns.
    static func identifier(of binding: PatternBindingSyntax) -> String? {
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { return nil }
        return pattern.identifier.identifier?.name ?? pattern.identifier.text
    }

    /// Whether a binding stores a value (no accessors, or only `willSet`/`didSet`).
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let block = binding.accessorBlock else { return true }
        guard case .accessors(let list) = block.accessors else { return false }
        return list.allSatisfy {
            [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
        }
    }

    /// Whether the declaration carries `@Name` (or `@Module.Name`).
    static func hasAttribute(_ variable: VariableDeclSyntax, named name: String) -> Bool {
        attribute(variable, named: name) != nil
    }

    /// The attribute `@Name(...)` or `@Module.Name(...)` on the declaration, if present.
    static func attribute(_ variable: VariableDeclSyntax, named name: String) -> AttributeSyntax? {
        for element in variable.attributes {
            guard let attr = element.as(AttributeSyntax.self) else { continue }
            if lastComponent(of: attr.attributeName) == name { return attr }
        }
        return nil
    }

    /// `Name` for `Name` and `Module.Name`.
    static func lastComponent(of type: TypeSyntax) -> String? {
        if let ident = type.as(IdentifierTypeSyntax.self) { return ident.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }

    /// The type of a literal default value: `Int`, `Double`, `String` or `Bool`.
    static func inferType(_ expr: ExprSyntax) -> TypeSyntax? {
        if expr.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expr.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expr.is(StringLiteralExprSyntax.self) { return "String" }
        if expr.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return inferType(prefix.expression)
        }
        return nil
    }

    /// For a default that constructs a collection (`[Sight]()`, `Array<Sight>()`, `Set<Tag>()`,
    /// `[Sight](repeating: …)`), the last name of its element type.
    static func constructedElementName(_ expr: ExprSyntax) -> String? {
        guard let call = expr.as(FunctionCallExprSyntax.self) else { return nil }
        let callee = call.calledExpression
        if let array = callee.as(ArrayExprSyntax.self), array.elements.count == 1,
            let element = array.elements.first?.expression
        {
            if let ref = element.as(DeclReferenceExprSyntax.self) { return ref.baseName.text }
            if let member = element.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
            return nil
        }
        if let generic = callee.as(GenericSpecializationExprSyntax.self),
            let ref = generic.expression.as(DeclReferenceExprSyntax.self),
            ["Array", "Set", "ContiguousArray"].contains(ref.baseName.text),
            let argument = generic.genericArgumentClause.arguments.first
        {
            return argument.argument.as(TypeSyntax.self).flatMap(lastComponent)
        }
        return nil
    }

    /// Whether the type is written as an optional (`T?`, `T!`, `Optional<T>`).
    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return true
        }
        if let ident = type.as(IdentifierTypeSyntax.self) { return ident.name.text == "Optional" }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text == "Optional" }
        return false
    }

    /// For `[E]`, `Array<E>`, `Set<E>` (optionally wrapped in `?`), the last name of `E`.
    static func collectionElementName(of type: TypeSyntax) -> String? {
        var type = type
        if let optional = type.as(OptionalTypeSyntax.self) { type = optional.wrappedType }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { type = iuo.wrappedType }
        if let array = type.as(ArrayTypeSyntax.self) { return lastComponent(of: array.element) }
        let generic: (String, GenericArgumentClauseSyntax?)?
        if let ident = type.as(IdentifierTypeSyntax.self) {
            generic = (ident.name.text, ident.genericArgumentClause)
        } else if let member = type.as(MemberTypeSyntax.self) {
            generic = (member.name.text, member.genericArgumentClause)
        } else {
            generic = nil
        }
        guard let (name, clause) = generic, ["Array", "Set", "ContiguousArray"].contains(name),
            let argument = clause?.arguments.first
        else { return nil }
        return argument.argument.as(TypeSyntax.self).flatMap(lastComponent)
    }

    // MARK: #Unique / #Index

    private static func scanConstraint(
        _ expansion: MacroExpansionDeclSyntax,
        into scan: inout ModelScan
    ) {
        let macro = expansion.macroName.text
        guard macro == "Unique" || macro == "Index" else { return }
        var groups: [ConstraintGroup] = []
        for argument in expansion.arguments {
            guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                scan.diagnostics.append(
                    ModelDiagnostic(
                        .constraintNotKeyPath(
                            macro: macro, expression: argument.expression.trimmedDescription)
                    ).at(argument))
                continue
            }
            var group = ConstraintGroup(names: [], keyPaths: [])
            for element in array.elements {
                guard let keyPath = element.expression.as(KeyPathExprSyntax.self) else {
                    scan.diagnostics.append(
                        ModelDiagnostic(
                            .constraintNotKeyPath(
                                macro: macro, expression: element.expression.trimmedDescription)
                        ).at(element))
                    continue
                }
                guard keyPath.components.count == 1, let component = keyPath.components.first,
                    case .property(let property) = component.component
                else {
                    scan.diagnostics.append(
                        ModelDiagnostic(
                            .constraintNestedKeyPath(
                                macro: macro, keyPath: keyPath.trimmedDescription)
                        ).at(keyPath))
                    continue
                }
                let token = property.declName.baseName
                group.names.append(token.identifier?.name ?? token.text)
                group.keyPaths.append(keyPath)
            }
            if !group.names.isEmpty { groups.append(group) }
        }
        if macro == "Unique" { scan.unique += groups } else { scan.indices += groups }
    }

    private static func validateConstraints(_ decl: some DeclGroupSyntax, _ scan: inout ModelScan) {
        for (macro, groups) in [("Unique", scan.unique), ("Index", scan.indices)] {
            for group in groups {
                for (name, keyPath) in zip(group.names, group.keyPaths) {
                    let text = keyPath.trimmedDescription
                    let kind: ModelDiagnostic.Kind
                    if let property = scan.property(named: name) {
                        guard macro == "Unique", property.isToMany else { continue }
                        kind = .constraintToMany(macro: macro, keyPath: text, property: name)
                    } else if scan.nonPersisted.contains(name) || declaresMember(decl, named: name) {
                        kind = .constraintNotPersisted(macro: macro, keyPath: text, property: name)
                    } else {
                        kind = .constraintUnknown(macro: macro, keyPath: text, property: name)
                    }
                    scan.diagnostics.append(ModelDiagnostic(kind).at(keyPath))
                }
            }
        }
    }

    /// Whether the class body declares any variable (static included) called `name`.
    private static func declaresMember(_ decl: some DeclGroupSyntax, named name: String) -> Bool {
        decl.memberBlock.members.contains { item in
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { return false }
            return variable.bindings.contains { identifier(of: $0) == name }
        }
    }

    private static func containsVariables(_ ifConfig: IfConfigDeclSyntax) -> Bool {
        ifConfig.clauses.contains { clause in
            guard case .decls(let members) = clause.elements else { return false }
            return members.contains { $0.decl.is(VariableDeclSyntax.self) }
        }
    }
}
