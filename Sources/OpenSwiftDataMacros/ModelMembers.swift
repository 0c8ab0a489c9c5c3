import SwiftSyntax
import SwiftSyntaxBuilder

/// Writes the members that `@Model`'s member role adds to a class.
///
/// A root model (`isBase`) owns the backing data; a subclass keeps values assigned before
/// `super.init` in its own pending storage and absorbs them into the root's backing data on
/// first use. Slot `i` of class `C` is `C._$slotBase_C + i`.
struct ModelMembers {
    /// The class name as written (backticks kept), for type references.
    let className: String
    /// The class name without backticks, for generated member names.
    let suffix: String
    /// `public `, `package ` or empty.
    let access: String
    /// Whether the class is the root of its model hierarchy.
    let isBase: Bool
    /// The class body analysis.
    let scan: ModelScan

    private var storage: String { "_$storage_\(suffix)" }
    private var slotBase: String { "_$slotBase_\(suffix)" }
    private var slotEnd: String { "_$slotEnd_\(suffix)" }
    private var live: String { "_$live_\(suffix)" }

    /// All generated members, in order.
    func declarations() -> [DeclSyntax] {
        var source = [
            // Every property access reads this; no run-time exclusivity check (about a hundred
            // instructions each): a model is used from one thread at a time, and `_resolve` holds
            // the access only while it creates the storage, which calls no code of the model's.
            "@exclusivity(unchecked) private var \(storage): OpenSwiftData.BackingData? = nil",
            isBase
                ? "private static let \(slotBase): Int = 0"
                : "private static let \(slotBase): Int = OpenSwiftData._slotBase(of: \(className).self)",
            // The slots up to this class's last one: the room a new model's storage is made
            // with, so its initialiser fills the slots without growing the buffer.
            isBase
                ? "private static let \(slotEnd): Int = \(scan.persisted.count)"
                : "private static let \(slotEnd): Int = \(slotBase) + \(scan.persisted.count)",
            liveAccessor(),
        ]
        if isBase { source.append(backingDataProperty()) }
        source += [backingDataInit(), schemaMetadata(), rootedKeyPaths(), entityConstraints(), absorbPendingValues()]
        return source.map { DeclSyntax(stringLiteral: $0) }
    }

    private func liveAccessor() -> String {
        if isBase {
            return "private var \(live): OpenSwiftData.BackingData { persistentBackingData }"
        }
        return """
            private var \(live): OpenSwiftData.BackingData {
                if let pending = \(storage) {
                    \(storage) = nil
                    persistentBackingData._absorb(pending)
                }
                return persistentBackingData
            }
            """
    }

    private func backingDataProperty() -> String {
        """
        \(access)var persistentBackingData: OpenSwiftData.BackingData {
            get { OpenSwiftData.BackingData._resolve(&\(storage), for: self) }
            set { \(storage) = newValue }
        }
        """
    }

    private func backingDataInit() -> String {
        var lines: [String] = []
        // A subclass's own property initialisers (defaults) may have filled the pending storage
        // through their init accessors; a loaded model must not absorb those defaults.
        lines.append(isBase ? "\(storage) = backingData" : "\(storage) = nil")
        for property in scan.persisted {
            if property.isConstant {
                // A `let` with a default keeps it: it cannot be assigned a second time.
                guard property.initializer == nil else { continue }
                lines.append(
                    "self.\(escaped(property.name)) = backingData._constantValue("
                        + "\(className).\(slotBase) + \(property.index))")
            } else {
                lines.append("_$\(property.name) = OpenSwiftData._NoStorage()")
            }
        }
        if !isBase { lines.append("super.init(backingData: backingData)") }
        return """
            \(access)required init(backingData: OpenSwiftData.BackingData) {
            \(lines.map { "    " + $0 }.joined(separator: "\n"))
            }
            """
    }

    private func schemaMetadata() -> String {
        let entries = scan.persisted.map { "        " + metadataEntry($0) + "," }
        let body = entries.isEmpty ? "    []" : "    [\n\(entries.joined(separator: "\n"))\n    ]"
        return """
            \(access)\(isBase ? "" : "override ")class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
            \(body)
            }
            """
    }

    /// `_$rootedKeyPaths()`: every persisted property's key path rooted at the dynamic class, so
    /// a subclass's inherited properties read as `\Sub.name` (history's `updatedAttributes` and
    /// tombstones, key-path lookups). `Root` is bound to `Self.self`, the class the call is made
    /// on; `\Self.name` itself is not usable in a class (the runtime cannot instantiate it).
    private func rootedKeyPaths() -> String {
        let entries = scan.persisted.map { "\"\($0.name)\": \\Root.\(escaped($0.name))" }
        let dictionary = entries.isEmpty ? "[:]" : "[" + entries.joined(separator: ", ") + "]"
        let result =
            isBase
            ? "rooted(Self.self)"
            : "super._$rootedKeyPaths().merging(rooted(Self.self)) { _, own in own }"
        return """
            \(access)\(isBase ? "" : "override ")class func _$rootedKeyPaths() -> [String: AnyKeyPath] {
                func rooted<Root: \(className)>(_: Root.Type) -> [String: AnyKeyPath] { \(dictionary) }
                return \(result)
            }
            """
    }

    private func metadataEntry(_ property: PersistedProperty) -> String {
        var defaultValue = "nil"
        if let initializer = property.initializer {
            // Without a written type the default's own type is the property's (the compiler
            // inferred it from this very expression).
            defaultValue =
                property.type.map { "(\(initializer.trimmedDescription)) as \(castType($0))" }
                ?? "(\(initializer.trimmedDescription)) as Any"
        }
        var metadata = "nil"
        if let relationship = property.relationship {
            metadata = "OpenSwiftData.Schema.Relationship(\(arguments(of: relationship)))"
        } else if let attribute = property.attribute {
            metadata = "OpenSwiftData.Schema.Attribute(\(arguments(of: attribute)))"
        }
        let name = escaped(property.name)
        var entry =
            "OpenSwiftData.Schema.PropertyMetadata(name: \"\(property.name)\", "
            + "keypath: \\\(className).\(name), defaultValue: \(defaultValue), metadata: \(metadata)"
        if property.isConstant { entry += ", isConstant: true" }
        return entry + ")"
    }

    private func entityConstraints() -> String {
        func list(_ groups: [ConstraintGroup]) -> String {
            "["
                + groups.map { group in
                    "[" + group.names.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
                }.joined(separator: ", ") + "]"
        }
        return """
            \(access)\(isBase ? "" : "override ")class var _$entityConstraints: OpenSwiftData._EntityConstraints {
                OpenSwiftData._EntityConstraints(unique: \(list(scan.unique)), indices: \(list(scan.indices)))
            }
            """
    }

    private func absorbPendingValues() -> String {
        if isBase { return "\(access)func _$absorbPendingValues() {}" }
        return """
            \(access)override func _$absorbPendingValues() {
                super._$absorbPendingValues()
                _ = \(live)
            }
            """
    }

    /// The argument list of `@Attribute(...)`/`@Relationship(...)`, verbatim.
    private func arguments(of attribute: AttributeSyntax) -> String {
        guard case .argumentList(let list) = attribute.arguments else { return "" }
        return list.trimmedDescription
    }

    /// The declared type as usable after `as`: `T!` becomes `T?`.
    private func castType(_ type: TypeSyntax) -> String {
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "(\(iuo.wrappedType.trimmedDescription))?"
        }
        return type.trimmedDescription
    }

    /// `name` wrapped in backticks when it is a keyword.
    private func escaped(_ name: String) -> String {
        Self.keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "func", "import", "init",
        "inout", "let", "operator", "protocol", "struct", "subscript", "typealias", "var",
        "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch",
        "false", "is", "nil", "rethrows", "super", "self", "Self", "throw", "throws", "true",
        "try", "Any", "internal", "private", "public", "fileprivate", "static",
    ]
}
